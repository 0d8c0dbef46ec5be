import HTTP
import Synchronization

/// An optional password in front of every page: sign-in, random expiring sessions, sign-out,
/// and wrong passwords slowed down per client.
///
/// Sessions live in memory, so a restart signs everyone out.
public final class SignIn: Sendable {
    public static let cookieName = "mailroom_session"
    /// How long a session lasts after sign-in.
    public let sessionSeconds: Int64
    private let password: [UInt8]
    private let sessions = Mutex<[String: Int64]>([:])
    /// Wrong passwords per address, shared with the other doors that take a secret.
    public let guesses: Guesses
    private let log: @Sendable (String) -> Void
    /// Where refusals (a wrong password) are told: the log's warnings.
    let warn: @Sendable (String) -> Void

    public init(
        password: String, sessionSeconds: Int64 = 7 * 86_400, log: @escaping @Sendable (String) -> Void,
        warn: (@Sendable (String) -> Void)? = nil, guesses: Guesses = Guesses()
    ) {
        self.guesses = guesses
        self.password = Array(password.utf8)
        self.sessionSeconds = sessionSeconds
        self.log = log
        self.warn = warn ?? log
    }

    /// The session id in the request's cookie, if it is one we gave out and it has not expired.
    func session(of request: Request, now: Int64) -> String? {
        guard let id = Self.cookie(Self.cookieName, in: request) else { return nil }
        return sessions.withLock { sessions in
            guard let expiry = sessions[id] else { return nil }
            guard expiry > now else {
                sessions[id] = nil
                return nil
            }
            return id
        }
    }

    enum Attempt {
        case accepted(session: String)
        case refused
        /// Too many wrong passwords from this client: wait this many seconds.
        case locked(seconds: Int64)
    }

    enum Check {
        case accepted
        case refused
        /// Too many wrong passwords from this client: wait this many seconds.
        case locked(seconds: Int64)
    }

    /// Checks `typed` without starting a session (for a door that sends the password with each
    /// request); each wrong password doubles how long this client must wait (up to a minute).
    func check(_ typed: String, from peer: String, now: Int64) -> Check {
        if case .wait(let seconds, let first) = guesses.check(peer, now: now) {
            if first { warn("sign-in: \(peer) must wait \(seconds) s after wrong passwords; not checked") }
            return .locked(seconds: seconds)
        }
        guard Secret.equal(Array(typed.utf8), password) else {
            let count = guesses.failed(peer, now: now)
            warn("sign-in: wrong password from \(peer) (\(count) in a row)")
            return .refused
        }
        return .accepted
    }

    /// Checks `typed` and, when it is the password, starts a session.
    func attempt(_ typed: String, from peer: String, now: Int64) -> Attempt {
        switch check(typed, from: peer, now: now) {
        case .locked(let seconds): return .locked(seconds: seconds)
        case .refused: return .refused
        case .accepted: break
        }
        let id = SecurityPolicy.randomToken()
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            sessions[id] = now + sessionSeconds
        }
        log("sign-in: \(peer) signed in")
        return .accepted(session: id)
    }

    func signOut(_ request: Request) {
        guard let id = Self.cookie(Self.cookieName, in: request) else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    func setCookie(_ id: String) -> String {
        "\(Self.cookieName)=\(id); Path=/; Max-Age=\(sessionSeconds); HttpOnly; SameSite=Strict"
    }

    static let clearCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"

    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: " ") == name else { continue }
                return parts[1].trimmingCharacters(in: " ")
            }
        }
        return nil
    }
}
