import HTTP
import SMTP

/// What every door that speaks another tool's API over HTTP (Mailpit's, MailHog's) checks
/// before answering, in one place.
extension MailroomApp {
    /// Why `request` may not be answered, if it may not: the same Host rule as the pages; a
    /// change from another site (a browser asks first for a PUT, a DELETE or JSON, and Mailroom
    /// never says yes, but a plain form could still be posted); behind a password, Basic
    /// authentication (any user name) with the password or the API token, or
    /// `Authorization: Bearer` with the token. Wrong passwords count as wrong guesses.
    func doorRefusal(for request: Request) -> HTTPError? {
        if let refusal = security.refusal(for: request, isAPI: true) { return refusal }
        if request.method != .get && request.method != .head, let origin = request.headers["Origin"],
           origin != "http://" + (request.headers["Host"] ?? "") {
            return HTTPError(.forbidden, "This request came from another site (\(origin)), so nothing was changed.")
        }
        guard let signIn else { return nil }
        switch checkAPIToken(request) {
        case .valid: return nil
        case .wait(let seconds): return Self.tooManyGuesses(seconds)
        case .absent, .wrong: break
        }
        if let password = Self.basicPassword(request.headers["Authorization"]) {
            if let apiToken, Secret.equal(password, apiToken) { return nil }
            switch signIn.check(password, from: request.peer, now: now()) {
            case .accepted: return nil
            case .locked(let seconds): return Self.tooManyGuesses(seconds)
            case .refused: break
            }
        }
        return HTTPError(
            Status(code: 401, reason: "Unauthorized"),
            "Mailroom has a password: send it (or the API token) with Basic authentication.",
            headers: ["WWW-Authenticate": "Basic realm=\"Mailroom\""])
    }

    private static func tooManyGuesses(_ seconds: Int64) -> HTTPError {
        HTTPError(
            Status(code: 429, reason: "Too Many Requests"),
            "Too many wrong passwords from this address: try again in \(seconds) s.",
            headers: ["Retry-After": String(seconds)])
    }

    /// The password of `Authorization: Basic …` (any user name), if that is what was sent.
    static func basicPassword(_ field: String?) -> String? {
        guard let field else { return nil }
        let words = field.split(separator: " ", maxSplits: 1)
        guard words.count == 2, words[0].lowercased() == "basic", let decoded = Base64.decode(Array(words[1].utf8)) else {
            return nil
        }
        let text = String(decoding: decoded, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return String(text[text.index(after: colon)...])
    }
}
