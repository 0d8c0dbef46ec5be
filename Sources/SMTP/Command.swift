/// One SMTP command, parsed from its line (without the line ending).
public enum Command: Equatable, Sendable {
    case hello(String, extended: Bool)
    case mail(from: String, parameters: MailParameters)
    case recipient(String)
    case data
    case reset
    case noop
    case quit
    case verify
    case help
    case startTLS
    case auth(mechanism: String, initialResponse: String?)

    /// What MAIL FROM may say after the path (RFC 1870, 6152, 6531, 4954).
    public struct MailParameters: Equatable, Sendable {
        public var size: Int?
        public var eightBit = false
        public var utf8 = false

        public init(size: Int? = nil, eightBit: Bool = false, utf8: Bool = false) {
            self.size = size
            self.eightBit = eightBit
            self.utf8 = utf8
        }
    }

    /// Parses a command line; a line that is not a command says why, as the reply to send.
    public static func parse(_ line: [UInt8]) -> Result<Command, Reply> {
        if line.contains(0) { return .failure(Reply(500, "5.5.2", "A command may not contain a NUL byte.")) }
        let text = String(decoding: line, as: UTF8.self)
        let verbEnd = text.firstIndex(of: " ") ?? text.endIndex
        let verb = text[..<verbEnd].uppercased()
        let argument = text[verbEnd...].drop { $0 == " " }
        let rest = String(argument)
        switch verb {
        case "EHLO", "HELO":
            let domain = rest.split(separator: " ").first.map(String.init) ?? ""
            guard !domain.isEmpty else { return .failure(.syntax("\(verb) needs the client's domain or address.")) }
            return .success(.hello(domain, extended: verb == "EHLO"))
        case "MAIL":
            return mail(rest)
        case "RCPT":
            guard let (path, _) = path(after: "TO:", in: rest) else {
                return .failure(.syntax("Say RCPT TO:<address>."))
            }
            guard !path.isEmpty else { return .failure(.syntax("A recipient cannot be the empty path <>.")) }
            return .success(.recipient(path))
        case "DATA":
            return rest.isEmpty ? .success(.data) : .failure(.syntax("DATA takes no argument."))
        case "RSET":
            return rest.isEmpty ? .success(.reset) : .failure(.syntax("RSET takes no argument."))
        case "NOOP":
            return .success(.noop)
        case "QUIT":
            return rest.isEmpty ? .success(.quit) : .failure(.syntax("QUIT takes no argument."))
        case "VRFY":
            return rest.isEmpty ? .failure(.syntax("VRFY needs a name or an address.")) : .success(.verify)
        case "HELP":
            return .success(.help)
        case "STARTTLS":
            return rest.isEmpty ? .success(.startTLS) : .failure(.syntax("STARTTLS takes no argument."))
        case "AUTH":
            let words = rest.split(separator: " ", omittingEmptySubsequences: true)
            guard let mechanism = words.first, words.count <= 2 else {
                return .failure(.syntax("Say AUTH and a mechanism, with or without an initial response."))
            }
            return .success(.auth(mechanism: mechanism.uppercased(), initialResponse: words.count == 2 ? String(words[1]) : nil))
        default:
            return .failure(Reply(500, "5.5.2", "Command not recognized."))
        }
    }

    private static func mail(_ rest: String) -> Result<Command, Reply> {
        guard let (path, tail) = path(after: "FROM:", in: rest) else {
            return .failure(.syntax("Say MAIL FROM:<address>, or MAIL FROM:<> for a bounce."))
        }
        var parameters = MailParameters()
        for word in tail.split(separator: " ", omittingEmptySubsequences: true) {
            let pair = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let keyword = pair[0].uppercased()
            let value = pair.count == 2 ? String(pair[1]) : nil
            switch (keyword, value?.uppercased()) {
            case ("SIZE", let size?):
                guard let bytes = Int(size), bytes >= 0, size.allSatisfy(\.isASCIIDigit) else {
                    return .failure(.syntax("SIZE needs a whole number of bytes."))
                }
                parameters.size = bytes
            case ("BODY", "7BIT"):
                parameters.eightBit = false
            case ("BODY", "8BITMIME"):
                parameters.eightBit = true
            case ("BODY", _):
                return .failure(.syntax("BODY is 7BIT or 8BITMIME."))
            case ("SMTPUTF8", nil):
                parameters.utf8 = true
            case ("AUTH", _?):
                // RFC 4954 5: the identity the message was submitted by; nothing to check here.
                break
            default:
                return .failure(Reply(555, "5.5.4", "MAIL does not take the parameter \(keyword)."))
            }
        }
        return .success(.mail(from: path, parameters: parameters))
    }

    /// The path in `FROM:<path> params` (the keyword matched in any case, a space allowed after
    /// the colon, as many clients send), and what follows it.
    private static func path(after keyword: String, in text: String) -> (String, Substring)? {
        guard text.uppercased().hasPrefix(keyword) else { return nil }
        let afterColon = text.dropFirst(keyword.count).drop { $0 == " " }
        if afterColon.first == "<" {
            guard let close = afterColon.firstIndex(of: ">") else { return nil }
            let inside = afterColon[afterColon.index(after: afterColon.startIndex)..<close]
            let tail = afterColon[afterColon.index(after: close)...]
            guard tail.isEmpty || tail.first == " " else { return nil }
            return (Self.withoutSourceRoute(inside), tail)
        }
        // A bare address, as some old devices send it.
        let end = afterColon.firstIndex(of: " ") ?? afterColon.endIndex
        let bare = afterColon[..<end]
        guard !bare.isEmpty else { return nil }
        return (String(bare), afterColon[end...])
    }

    /// RFC 5321 4.1.2: a source route (`@relay:user@host`) is accepted and ignored.
    private static func withoutSourceRoute(_ path: Substring) -> String {
        guard path.first == "@", let colon = path.firstIndex(of: ":") else { return String(path) }
        return String(path[path.index(after: colon)...])
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
