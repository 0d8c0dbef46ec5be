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
    private let failures = Mutex<[String: Lockout]>([:])
    private let log: @Sendable (String) -> Void
    /// Where refusals (a wrong password) are told: the log's warnings.
    private let warn: @Sendable (String) -> Void

    struct Lockout {
        var count: Int
        var until: Int64
    }

    public init(
        password: String, sessionSeconds: Int64 = 7 * 86_400, log: @escaping @Sendable (String) -> Void,
        warn: (@Sendable (String) -> Void)? = nil
    ) {
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

    /// Checks `typed`; each wrong password doubles how long this client must wait (up to a minute).
    func attempt(_ typed: String, from peer: String, now: Int64) -> Attempt {
        if let lockout = failures.withLock({ $0[peer] }), lockout.until > now {
            return .locked(seconds: lockout.until - now)
        }
        guard Self.constantTimeEqual(Array(typed.utf8), password) else {
            let lockout = failures.withLock { failures in
                var entry = failures[peer] ?? Lockout(count: 0, until: 0)
                entry.count += 1
                entry.until = now + min(Int64(1) << min(entry.count - 1, 6), 60)
                failures[peer] = entry
                return entry
            }
            warn("sign-in: wrong password from \(peer) (\(lockout.count) in a row)")
            return .refused
        }
        failures.withLock { $0[peer] = nil }
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

    /// Compares without stopping at the first difference, so timing does not reveal a prefix.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
