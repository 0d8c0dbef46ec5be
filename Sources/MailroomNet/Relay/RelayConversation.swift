import SMTP

/// The client's side of one SMTP transaction with the relay, as a value: given each reply it
/// says what to do next, and in the end what became of each recipient. It knows no socket, so
/// every turn of the conversation can be tested with replies alone.
///
/// One command at a time, even when the relay offers PIPELINING: a message costs a few more
/// round trips, and a reply always answers the command just sent.
struct RelayConversation {
    enum Action: Equatable {
        /// Write these bytes and wait for the reply.
        case send([UInt8])
        /// The relay agreed to STARTTLS: shake hands, then call `secured()`.
        case startTLS
        /// The relay waits for the text: write it (`RelayText.prepared`) and ask the caller
        /// before the end, then call `decided(_:)`.
        case sendText
        /// The outcome, one per recipient; then QUIT, or a plain close inside the data.
        case finish([RelayReply])

        /// Whether the relay is to say nothing more until the client has acted. While the text
        /// goes it may: a relay can refuse it before the end (smtp-sink -A does).
        var awaitsReply: Bool {
            switch self {
            case .send, .startTLS: true
            case .sendText, .finish: false
            }
        }
    }

    private enum Stage: Equatable {
        case greeting, ehlo, helo, startTLS, handshake, ehloAfterTLS
        case authPlain, authLoginUser, authLoginPassword, authLoginDone
        case mail, recipient(Int), data, text, end, done
    }

    private let configuration: RelayConfiguration
    private let message: RelayMessage
    /// Bytes of the text as sent, for SIZE.
    private let textSize: Int
    private let eightBit: Bool
    private let needsUTF8: Bool
    private var stage = Stage.greeting
    private var extensions = RelayExtensions()
    private(set) var isSecure = false
    /// Each recipient's outcome once it is known; nil for those the relay took at RCPT.
    private var outcomes: [RelayReply?]
    /// The relay said 354, and the final dot has not been sent.
    private(set) var isInsideData = false

    init(configuration: RelayConfiguration, message: RelayMessage, textSize: Int) {
        self.configuration = configuration
        self.message = message
        self.textSize = textSize
        eightBit = RelayText.isEightBit(message.bytes)
        needsUTF8 = ([message.sender] + message.recipients).contains { $0.utf8.contains { $0 >= 0x80 } }
        outcomes = Array(repeating: nil, count: message.recipients.count)
    }

    /// Why the message cannot go at all, before any connection: an address that would break
    /// the command it is written into.
    static func refusal(of message: RelayMessage) -> String? {
        for address in [message.sender] + message.recipients {
            if address.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) {
                return "The address \"\(address.unicodeScalars.map { $0.value < 0x20 ? "?" : String($0) }.joined())\" holds a control character or an angle bracket."
            }
        }
        return nil
    }

    /// What is awaited, for a message about a wait that ran out.
    var awaited: String {
        switch stage {
        case .greeting: "the greeting"
        case .ehlo, .ehloAfterTLS: "the reply to EHLO"
        case .helo: "the reply to HELO"
        case .startTLS: "the reply to STARTTLS"
        case .handshake: "the TLS handshake"
        case .authPlain, .authLoginUser, .authLoginPassword, .authLoginDone: "the reply to AUTH"
        case .mail: "the reply to MAIL FROM"
        case .recipient: "the reply to RCPT TO"
        case .data: "the reply to DATA"
        case .text: "the relay to take the text"
        case .end: "the reply to the end of the data"
        case .done: "the reply to QUIT"
        }
    }

    // MARK: Replies

    mutating func receive(_ reply: RelayServerReply) -> Action {
        switch stage {
        case .greeting:
            guard reply.code == 220 else { return failAll(reply, after: "the greeting") }
            stage = .ehlo
            return .send(line("EHLO \(configuration.heloName)"))
        case .ehlo:
            if reply.code == 250 {
                extensions = RelayExtensions(ehlo: reply)
                return afterHello()
            }
            // A server that does not know EHLO may still know HELO (RFC 5321 3.2).
            guard reply.kind == 5 else { return failAll(reply, after: "EHLO") }
            stage = .helo
            return .send(line("HELO \(configuration.heloName)"))
        case .helo:
            guard reply.code == 250 else { return failAll(reply, after: "HELO") }
            extensions = RelayExtensions()
            return afterHello()
        case .startTLS:
            // Once offered, TLS must work: falling back to plain text is what an attacker
            // in the middle would arrange.
            guard reply.code == 220 else { return finishAll(.deferred("The relay refused STARTTLS: \(reply.text).")) }
            stage = .handshake
            return .startTLS
        case .handshake, .done:
            return finishAll(.deferred("The relay sent a reply nobody asked for: \(reply.text)."))
        case .ehloAfterTLS:
            guard reply.code == 250 else { return failAll(reply, after: "EHLO") }
            extensions = RelayExtensions(ehlo: reply)
            return afterSecuring()
        case .authPlain, .authLoginDone:
            guard reply.code == 235 else { return loginRefused(reply) }
            return mailFrom()
        case .authLoginUser:
            guard reply.code == 334, let login = configuration.login else { return loginRefused(reply) }
            stage = .authLoginPassword
            return .send(line(Base64.encode(Array(login.user.utf8))))
        case .authLoginPassword:
            guard reply.code == 334, let login = configuration.login else { return loginRefused(reply) }
            stage = .authLoginDone
            return .send(line(Base64.encode(Array(login.password.utf8))))
        case .mail:
            guard reply.kind == 2 else { return failAll(reply, after: "MAIL FROM") }
            return recipient(0)
        case .recipient(let index):
            switch reply.kind {
            case 2: break
            case 4: outcomes[index] = .deferred("\(reply.text) (in reply to RCPT TO)")
            case 5: outcomes[index] = .refused("\(reply.text) (in reply to RCPT TO)")
            default: outcomes[index] = .deferred("The relay answered RCPT TO with \(reply.text), which is no answer to it.")
            }
            return recipient(index + 1)
        case .data:
            guard reply.code == 354 else { return failAccepted(reply, after: "DATA") }
            stage = .text
            // From here a QUIT would be read as text: only a close gets out before the end.
            isInsideData = true
            return .sendText
        case .text:
            // The relay may refuse while the text is still coming (too large, say).
            return failAccepted(reply, after: "the text")
        case .end:
            switch reply.kind {
            case 2: return finishAccepted(.accepted(reply.text))
            case 4: return finishAccepted(.deferred(reply.text))
            case 5: return finishAccepted(.refused(reply.text))
            default: return finishAccepted(.deferred("lost after the end of data: the relay answered \(reply.text)."))
            }
        }
    }

    /// The TLS handshake is done: EHLO again, since the relay forgets what it said before.
    mutating func secured() -> Action {
        isSecure = true
        stage = .ehloAfterTLS
        return .send(line("EHLO \(configuration.heloName)"))
    }

    /// The caller's word, with all the text written: the end of the data, or giving up.
    mutating func decided(_ proceed: Bool) -> Action {
        guard stage == .text else { return .finish(outcomes.map { $0 ?? .deferred("abandoned") }) }
        guard proceed else { return finishAll(.deferred("abandoned")) }
        stage = .end
        isInsideData = false
        return .send(RelayText.end)
    }

    /// The connection failed, broke or timed out: every recipient not yet settled is deferred.
    /// After the end of the data nobody knows whether the relay took the message.
    mutating func failed(_ reason: String) -> [RelayReply] {
        let text = stage == .end ? "lost after the end of data: \(reason)" : reason
        stage = .done
        return outcomes.map { $0 ?? .deferred(text) }
    }

    // MARK: Steps

    private mutating func afterHello() -> Action {
        guard !isSecure, configuration.tls != .none else { return afterSecuring() }
        if extensions.startTLS {
            stage = .startTLS
            return .send(line("STARTTLS"))
        }
        guard configuration.tls != .require else {
            return finishAll(.deferred("The relay does not offer STARTTLS, and TLS is required."))
        }
        return afterSecuring()
    }

    private mutating func afterSecuring() -> Action {
        if let limit = extensions.maxMessageBytes, textSize > limit {
            return finishAll(.refused("The message is \(textSize) bytes, more than the \(limit) the relay takes."))
        }
        if needsUTF8 && !extensions.smtpUTF8 {
            return finishAll(.refused("An address is not ASCII, and the relay does not offer SMTPUTF8."))
        }
        guard let login = configuration.login else { return mailFrom() }
        guard isSecure || configuration.tls == .none else {
            return finishAll(.deferred("The relay does not offer STARTTLS, and the login is not sent in plain text."))
        }
        if extensions.authMechanisms.contains("PLAIN") {
            stage = .authPlain
            let credentials = [0] + Array(login.user.utf8) + [0] + Array(login.password.utf8)
            return .send(line("AUTH PLAIN \(Base64.encode(credentials))"))
        }
        if extensions.authMechanisms.contains("LOGIN") {
            stage = .authLoginUser
            return .send(line("AUTH LOGIN"))
        }
        return finishAll(.deferred("The relay offers neither AUTH PLAIN nor AUTH LOGIN, and a login is set."))
    }

    private mutating func mailFrom() -> Action {
        stage = .mail
        var command = "MAIL FROM:<\(message.sender)>"
        if extensions.announcesSize { command += " SIZE=\(textSize)" }
        if eightBit && extensions.eightBitMIME { command += " BODY=8BITMIME" }
        if needsUTF8 { command += " SMTPUTF8" }
        return .send(line(command))
    }

    /// RCPT TO for the recipient at `index`, or DATA after the last.
    private mutating func recipient(_ index: Int) -> Action {
        if index < message.recipients.count {
            stage = .recipient(index)
            return .send(line("RCPT TO:<\(message.recipients[index])>"))
        }
        guard outcomes.contains(where: { $0 == nil }) else {
            stage = .done
            return .finish(outcomes.map { $0 ?? .deferred("The relay took no recipient.") })
        }
        stage = .data
        return .send(line("DATA"))
    }

    // MARK: Outcomes

    private mutating func finishAll(_ outcome: RelayReply) -> Action {
        stage = .done
        return .finish(Array(repeating: outcome, count: outcomes.count))
    }

    /// Each recipient the relay took at RCPT gets `outcome`; the others keep theirs.
    private mutating func finishAccepted(_ outcome: RelayReply) -> Action {
        stage = .done
        return .finish(outcomes.map { $0 ?? outcome })
    }

    /// A refusal of the whole transaction, before any recipient was settled.
    private mutating func failAll(_ reply: RelayServerReply, after command: String) -> Action {
        finishAll(Self.outcome(of: reply, after: command))
    }

    private mutating func failAccepted(_ reply: RelayServerReply, after command: String) -> Action {
        finishAccepted(Self.outcome(of: reply, after: command))
    }

    /// A wrong login is the relay's set-up, not the message's fault: it is deferred, 5xx or not,
    /// so the mail goes once the login is put right.
    private mutating func loginRefused(_ reply: RelayServerReply) -> Action {
        finishAll(.deferred("The relay refused the login: \(reply.text)."))
    }

    private static func outcome(of reply: RelayServerReply, after command: String) -> RelayReply {
        switch reply.kind {
        case 4: .deferred("\(reply.text) (in reply to \(command))")
        case 5: .refused("\(reply.text) (in reply to \(command))")
        default: .deferred("The relay answered \(command) with \(reply.text), which is no answer to it.")
        }
    }

    private func line(_ text: String) -> [UInt8] {
        Array(text.utf8) + [13, 10]
    }
}
