import HTML
import HTTP

/// Who may talk to Mailroom: which Host names it answers to, and the token every form carries.
public struct SecurityPolicy: Sendable {
    /// Host names and addresses (lower case, without port) that requests may name; nil lets any through.
    public var allowedHosts: Set<String>?
    /// The anti-forgery token that every state-changing form carries; nil checks none.
    public var formToken: String?

    public init(allowedHosts: Set<String>?, formToken: String?) {
        self.allowedHosts = allowedHosts
        self.formToken = formToken
    }

    /// No checks: for the pure handler in tests that exercise something else.
    public static let off = SecurityPolicy(allowedHosts: nil, formToken: nil)

    /// A fresh random token, as 64 hexadecimal digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Why `request` is refused before routing, or nil when it may proceed.
    /// API requests (`isAPI`) carry JSON, which no other site can post without asking first,
    /// instead of the form token.
    func refusal(for request: Request, isAPI: Bool = false) -> HTTPError? {
        let host = request.headers["Host"] ?? ""
        guard request.headers.count(of: "Host") <= 1 else {
            return HTTPError(.badRequest, "The request names more than one Host.")
        }
        if let allowedHosts, !(host.isEmpty && request.minorVersion == 0) {
            // HTTP/1.0 has no Host header; browsers, whose pages rebinding would use, always send one.
            guard !host.isEmpty else { return HTTPError(.badRequest, "The request has no Host header.") }
            guard allowedHosts.contains(Self.hostName(host)) else {
                // A page that rebinds its own DNS name to this machine still sends its own name.
                return HTTPError(.forbidden, "Mailroom does not answer to the name “\(host)”. "
                    + "Use the address it was started with, or start it with --allowed-host.")
            }
        }
        guard request.method == .post else { return nil }
        if let origin = request.headers["Origin"] {
            guard !host.isEmpty, origin == "http://" + host else {
                return HTTPError(.forbidden, "This form came from another site (\(origin)), so nothing was changed.")
            }
        } else if let referer = request.headers["Referer"] {
            guard !host.isEmpty, referer.hasPrefix("http://" + host + "/") else {
                return HTTPError(.forbidden, "This form came from another site, so nothing was changed.")
            }
        }
        if let formToken, !isAPI {
            let sent: String?
            do {
                sent = try request.form()["csrf"]
            } catch {
                // A body that is not a readable form is a bad request, not a forgery.
                return error
            }
            guard let sent, Secret.equal(Array(sent.utf8), Array(formToken.utf8)) else {
                return HTTPError(.forbidden, "This form is out of date or did not come from Mailroom "
                    + "(perhaps Mailroom was restarted), so nothing was changed. Reload the page and try again.")
            }
        }
        return nil
    }

    /// `Example.LAN:8080` → `example.lan`; `[::1]:8080` → `::1`.
    /// Read byte by byte: it runs on every request.
    static func hostName(_ host: String) -> String {
        let bytes = host.utf8
        var name = bytes[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let end = bytes.firstIndex(of: UInt8(ascii: "]")) else { return host.lowercased() }
            name = bytes[bytes.index(after: bytes.startIndex)..<end]
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            name = bytes[..<colon]
        }
        let text = String(decoding: name, as: UTF8.self)
        let isLower = !name.contains { $0 >= 0x80 || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        return isLower ? text : text.lowercased()
    }
}

/// A form that changes something: it posts to `action` and carries the anti-forgery token.
func postForm(_ action: String, token: String?, _ attributes: Attribute..., @HTMLBuilder content: () -> Node) -> Node {
    element("form", [.methodPost, .action(action)] + attributes) {
        if let token { input(.type(.hidden), .name("csrf"), .value(token)) }
        content()
    }
}
