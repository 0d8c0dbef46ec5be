import SMTP

/// The client's side of one SMTP transaction with the relay, as a value: given each reply it
/// says what to do next, and in the end what became of each recipient. It knows no socket, so
/// every turn of the conversation can be tested with replies alone.
///
/// When the relay offers PIPELINING (RFC 2920), MAIL FROM, every RCPT TO and DATA go in one
/// write, and their replies are taken in order; otherwise one command at a time. A connection
/// whose transaction ended cleanly carries on with the next message (`RelaySession`), RSET
/// first when that transaction was refused part way.
struct RelayConversation {
    enum Action: Equatable {
        /// Write these bytes and wait for the reply.
        case send([UInt8])
        /// Wait for the next reply to commands already written together.
        case await
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
            case .send, .startTLS, .await: true
            case .sendText, .finish: false
            }
        }
    }

    private enum Stage: Equatable {
        case greeting, ehlo, helo, startTLS, handshake, ehloAfterTLS
        case authPlain, authLoginUser, authLoginPassword, authLoginDone
        /// A reused connection: `begin()` says the first command.
        case ready, reset
        case mail, recipient(Int), data, text, end
        /// After a 354 the client did not want (pipelined, with no recipient taken): the lone
        /// dot that ends the empty text has gone, and its reply is awaited.
        case emptyData
        case done
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
    /// MAIL FROM, the RCPT TOs and DATA went in one write.
    private var pipelined = false
    /// The reply that refused MAIL FROM, when pipelined: the RCPT and DATA replies after it
    /// are read and put aside.
    private var mailRefusal: RelayServerReply?
    /// How the transaction ended, when the connection may carry another (nil: it may not).
    private var ending: RelaySession?
    /// The connection carried a transaction before this one.
    private let isReused: Bool
    /// The relay has replied to something of this transaction.
    private var isAnswered = false

    /// `session`: the connection has carried a transaction before and stays logged in; `begin()`
    /// then says the first command.
    init(configuration: RelayConfiguration, message: RelayMessage, textSize: Int, session: RelaySession? = nil) {
        self.configuration = configuration
        self.message = message
        self.textSize = textSize
        eightBit = RelayText.isEightBit(message.bytes)
        needsUTF8 = ([message.sender] + message.recipients).contains { $0.utf8.contains { $0 >= 0x80 } }
        outcomes = Array(repeating: nil, count: message.recipients.count)
        isReused = session != nil
        if let session {
            extensions = session.extensions
            isSecure = session.isSecure
            stage = session.needsReset ? .reset : .ready
        }
    }

    /// The first command on a reused connection: RSET after a transaction refused part way
    /// (the relay may still hold some of it), otherwise MAIL FROM.
    mutating func begin() -> Action {
        switch stage {
        case .reset: return .send(line("RSET"))
        case .ready: return checked() ?? mailFrom()
        default: return .await
        }
    }

    /// What the connection is fit for once the outcome is known: another transaction (and
    /// whether RSET must come first), or nil: QUIT.
    var session: RelaySession? {
        guard stage == .done, let ending else { return nil }
        return ending
    }

    /// Whether a failure now comes before the relay answered anything of this transaction on a
    /// reused connection: the relay had closed it while it waited, and the message may go on a
    /// new one as if nothing had been tried.
    var isUnanswered: Bool {
        isReused && !isAnswered
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
        case .ready, .reset: "the reply to RSET"
        case .authPlain, .authLoginUser, .authLoginPassword, .authLoginDone: "the reply to AUTH"
        case .mail: "the reply to MAIL FROM"
        case .recipient: "the reply to RCPT TO"
        case .data: "the reply to DATA"
        case .text: "the relay to take the text"
        case .end, .emptyData: "the reply to the end of the data"
        case .done: "the reply to QUIT"
        }
    }

    // MARK: Replies

    mutating func receive(_ reply: RelayServerReply) -> Action {
        isAnswered = true
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
        case .handshake, .done, .ready:
            return finishAll(.deferred("The relay sent a reply nobody asked for: \(reply.text)."))
        case .reset:
            guard reply.kind == 2 else { return finishAll(.deferred("The relay refused RSET: \(reply.text).")) }
            return checked() ?? mailFrom()
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
            guard pipelined else {
                guard reply.kind == 2 else { return failAll(reply, after: "MAIL FROM") }
                return recipient(0)
            }
            if reply.kind != 2 { mailRefusal = reply }
            stage = .recipient(0)
            return .await
        case .recipient(let index) where pipelined:
            if mailRefusal == nil { settleRecipient(index, reply) }
            stage = index + 1 < message.recipients.count ? .recipient(index + 1) : .data
            return .await
        case .recipient(let index):
            settleRecipient(index, reply)
            return recipient(index + 1)
        case .data where pipelined && (mailRefusal != nil || !outcomes.contains(where: { $0 == nil })):
            // Nothing is to be sent: a relay that says 354 all the same gets the empty text's end.
            guard reply.code == 354 else { return refusedBeforeData(reply) }
            stage = .emptyData
            return .send(RelayText.end)
        case .emptyData:
            // The relay's answer to an empty text nobody wanted: the outcome stands as refused
            // before it, and the transaction is over either way.
            return refusedBeforeData(reply)
        case .data:
            guard reply.code == 354 else {
                if reply.kind == 4 || reply.kind == 5 { ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: true) }
                return failAccepted(reply, after: "DATA")
            }
            stage = .text
            // From here a QUIT would be read as text: only a close gets out before the end.
            isInsideData = true
            return .sendText
        case .text:
            // The relay may refuse while the text is still coming (too large, say).
            return failAccepted(reply, after: "the text")
        case .end:
            // A finished DATA leaves the relay ready for the next transaction (RFC 5321 4.1.1.4),
            // whatever its answer, unless it said it is closing.
            if reply.code != 421 { ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: false) }
            switch reply.kind {
            case 2: return finishAccepted(.accepted(reply.text))
            case 4: return finishAccepted(.deferred(reply.text))
            case 5: return finishAccepted(.refused(reply.text))
            default: return finishAccepted(.deferred("lost after the end of data: the relay answered \(reply.text)."))
            }
        }
    }

    private mutating func settleRecipient(_ index: Int, _ reply: RelayServerReply) {
        switch reply.kind {
        case 2: break
        case 4: outcomes[index] = .deferred("\(reply.text) (in reply to RCPT TO)")
        case 5: outcomes[index] = .refused("\(reply.text) (in reply to RCPT TO)")
        default: outcomes[index] = .deferred("The relay answered RCPT TO with \(reply.text), which is no answer to it.")
        }
    }

    /// The end of a pipelined transaction that sent no text: MAIL FROM's refusal for everyone,
    /// or each recipient's own. The relay holds nothing of it, but RSET comes first all the same.
    private mutating func refusedBeforeData(_ reply: RelayServerReply) -> Action {
        if reply.code != 421 { ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: true) }
        if let mailRefusal { return failAll(mailRefusal, after: "MAIL FROM") }
        stage = .done
        return .finish(outcomes.map { $0 ?? .deferred("The relay took no recipient.") })
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
        ending = nil
        // Pipelined, MAIL FROM's refusal is what counts (a relay that says 421 then hangs up).
        if let mailRefusal { return outcomes.map { _ in Self.outcome(of: mailRefusal, after: "MAIL FROM") } }
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

    /// Why this message cannot go to this relay as it announced itself, if it cannot. The
    /// connection stays fit for the next message: nothing of this one was said.
    private mutating func checked() -> Action? {
        let refusal: String
        if let limit = extensions.maxMessageBytes, textSize > limit {
            refusal = "The message is \(textSize) bytes, more than the \(limit) the relay takes."
        } else if needsUTF8 && !extensions.smtpUTF8 {
            refusal = "An address is not ASCII, and the relay does not offer SMTPUTF8."
        } else {
            return nil
        }
        ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: false)
        return finishAll(.refused(refusal))
    }

    private mutating func afterSecuring() -> Action {
        if let refusal = checked() { return refusal }
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
        guard extensions.pipelining, !message.recipients.isEmpty else { return .send(line(command)) }
        pipelined = true
        var batch = line(command)
        for recipient in message.recipients { batch += line("RCPT TO:<\(recipient)>") }
        return .send(batch + line("DATA"))
    }

    /// RCPT TO for the recipient at `index`, or DATA after the last.
    private mutating func recipient(_ index: Int) -> Action {
        if index < message.recipients.count {
            stage = .recipient(index)
            return .send(line("RCPT TO:<\(message.recipients[index])>"))
        }
        guard outcomes.contains(where: { $0 == nil }) else {
            stage = .done
            ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: true)
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

    /// A refusal of the whole transaction, before any recipient was settled. After MAIL FROM
    /// the connection may carry on (RSET first); after the greeting, EHLO or HELO it may not.
    private mutating func failAll(_ reply: RelayServerReply, after command: String) -> Action {
        if command == "MAIL FROM", reply.kind == 4 || reply.kind == 5, reply.code != 421 {
            ending = RelaySession(extensions: extensions, isSecure: isSecure, needsReset: true)
        }
        return finishAll(Self.outcome(of: reply, after: command))
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

/// What a connection that has carried a transaction brings to the next: what the relay
/// announced, whether TLS is on, and whether RSET must come first.
struct RelaySession: Equatable, Sendable {
    var extensions: RelayExtensions
    var isSecure: Bool
    var needsReset: Bool
}
