/// What the relay announced in its reply to EHLO (RFC 5321 4.1.1.1): the extensions the client
/// uses, and nothing else.
struct RelayExtensions: Equatable, Sendable {
    var startTLS = false
    var pipelining = false
    var eightBitMIME = false
    var smtpUTF8 = false
    /// SIZE was announced, so MAIL FROM may say the message's size.
    var announcesSize = false
    /// The largest message the relay takes, when SIZE named one (RFC 1870: 0 names none).
    var maxMessageBytes: Int?
    /// The SASL mechanisms of AUTH, in capitals.
    var authMechanisms: Set<String> = []

    /// No extensions: the relay answered HELO, or EHLO with nothing after its name.
    init() {}

    init(ehlo reply: RelayServerReply) {
        // The first line is the relay's name and greeting.
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map { $0.uppercased() }
            guard var keyword = words.first else { continue }
            var parameters = Array(words.dropFirst())
            // Some old servers wrote "AUTH=LOGIN PLAIN", for clients older still.
            if keyword.hasPrefix("AUTH=") {
                parameters.insert(String(keyword.dropFirst(5)), at: 0)
                keyword = "AUTH"
            }
            switch keyword {
            case "STARTTLS": startTLS = true
            case "PIPELINING": pipelining = true
            case "8BITMIME": eightBitMIME = true
            case "SMTPUTF8": smtpUTF8 = true
            case "AUTH": authMechanisms.formUnion(parameters)
            case "SIZE":
                announcesSize = true
                if let limit = parameters.first.flatMap({ Int($0) }), limit > 0 { maxMessageBytes = limit }
            default: break
            }
        }
    }
}
