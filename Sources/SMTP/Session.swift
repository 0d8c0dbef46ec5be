/// One SMTP session as a value: bytes in, replies and messages out. No socket: the server feeds
/// it what arrives and does what `next()` says, so every case can be tested and fuzzed.
///
/// Commands are answered in order, however many arrive together (PIPELINING). After a message's
/// text, nothing more is read until the server has stored it and called `delivered` (or
/// `notDelivered`), so the replies to commands pipelined after DATA come after its 250.
public struct Session {
    public enum Step: Equatable {
        /// Send this reply, then call `next()` again.
        case reply(Reply)
        /// Store this message durably, then call `delivered` or `notDelivered` and send the reply.
        case deliver(ReceivedMessage)
        /// Send this reply, then start TLS. Whatever the client sent after STARTTLS is gone.
        case startTLS(Reply)
        /// Send this reply and close the connection.
        case close(Reply)
        /// Nothing more can be done until more bytes arrive.
        case needMore
    }

    private enum Phase {
        case commands
        case text(DataReader)
        case authPlain
        case authLoginUser
        case authLoginPassword(user: String)
        case waitingForStore
        case closed
    }

    private struct Transaction {
        var sender: String
        var parameters: Command.MailParameters
        var recipients: [String] = []
    }

    public let options: SessionOptions
    private var input: [UInt8] = []
    private var position = 0
    private var phase = Phase.commands
    private var client: String?
    private var extended = false
    private var transaction: Transaction?
    private var user: String?
    /// Whether the session runs over TLS (after STARTTLS).
    public private(set) var isTLS = false
    /// Set while an over-long command line is being skipped to its end.
    private var skippingLongLine = false
    /// The client's numeric address, for the login throttle.
    public var peer: String
    /// Logins refused in this session; at `maxFailedLogins` the session is closed.
    private var failedLogins = 0
    /// Postfix closes after a few errors too; three wrong logins is no typo.
    public static let maxFailedLogins = 3

    public init(options: SessionOptions, peer: String = "") {
        self.options = options
        self.peer = peer
    }

    /// The first thing the server says (RFC 5321 4.3.1).
    public var greeting: Reply {
        Reply(220, nil, "\(options.hostname) Mailroom ESMTP ready")
    }

    /// Takes bytes the client sent.
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        if position > 0, position >= input.count / 2 {
            input.removeFirst(position)
            position = 0
        }
        input.append(contentsOf: bytes)
    }

    /// Bytes received and not yet read.
    public var buffered: Int { input.count - position }

    /// The next thing to do.
    public mutating func next() -> Step {
        switch phase {
        case .closed, .waitingForStore:
            return .needMore
        case .text(var reader):
            // The reader leaves `phase` while it reads, so its text has one owner and grows in
            // place; otherwise each chunk would copy all the text received so far.
            phase = .waitingForStore
            let (consumed, outcome) = input.withUnsafeBufferPointer { all in
                reader.read(UnsafeBufferPointer(rebasing: all[position...]))
            }
            position += consumed
            guard let outcome else {
                phase = .text(reader)
                return .needMore
            }
            return finishText(reader, outcome)
        case .commands, .authPlain, .authLoginUser, .authLoginPassword:
            guard let line = nextLine() else { return .needMore }
            switch line {
            case .tooLong:
                return .reply(Reply(500, "5.5.6", "The line is longer than \(options.limits.maxCommandLineBytes) bytes."))
            case .line(let bytes):
                if case .commands = phase {
                    return command(bytes)
                }
                return authResponse(bytes)
            }
        }
    }

    /// The message handed out by `.deliver` is stored: the reply to its DATA.
    public mutating func delivered(as name: String) -> Reply {
        phase = .commands
        return Reply(250, "2.0.0", "Stored as \(name)")
    }

    /// The message could not be stored: the client should try again later.
    public mutating func notDelivered() -> Reply {
        phase = .commands
        return Reply(451, "4.3.0", "Mailroom could not store the message; please send it again later.")
    }

    /// What to say when a session has been idle, or open, too long.
    public static let timedOut = Reply(421, "4.4.2", "The session took too long; closing.")

    /// What to say to a connection over the limit of connections.
    public static func busy(hostname: String) -> Reply {
        Reply(421, "4.7.0", "\(hostname) has too many connections; try again later.")
    }

    // MARK: Lines

    private enum Line {
        case line([UInt8])
        case tooLong
    }

    /// The next command line without its ending (CRLF, or a bare LF, which commands tolerate).
    private mutating func nextLine() -> Line? {
        let limit = options.limits.maxCommandLineBytes
        guard let newline = input[position...].firstIndex(of: lf) else {
            if skippingLongLine || buffered > limit {
                // Too long already: forget it as it comes, and answer once its end arrives.
                skippingLongLine = true
                position = input.count
            }
            return nil
        }
        let start = position
        var end = newline
        if end > start, input[end - 1] == cr { end -= 1 }
        position = newline + 1
        // The limit counts the line's ending as the two bytes of a CRLF.
        if skippingLongLine || end - start + 2 > limit {
            skippingLongLine = false
            return .tooLong
        }
        let bytes = Array(input[start..<end])
        return .line(bytes)
    }

    // MARK: Commands

    private mutating func command(_ line: [UInt8]) -> Step {
        let parsed: Command
        switch Command.parse(line) {
        case .success(let command): parsed = command
        case .failure(let reply): return .reply(reply)
        }
        switch parsed {
        case .hello(let name, let isExtended):
            client = name
            extended = isExtended
            transaction = nil
            return .reply(isExtended ? ehloReply(name) : Reply(250, nil, "\(options.hostname) greets \(name)"))
        case .mail(let sender, let parameters):
            guard client != nil else { return .reply(.badSequence("Say EHLO first.")) }
            guard transaction == nil else { return .reply(.badSequence("A message is already under way; say RSET to start again.")) }
            if case .passwords = options.authentication, user == nil {
                return .reply(Reply(530, "5.7.0", "Log in first (AUTH)."))
            }
            if let size = parameters.size, size > options.limits.maxMessageBytes {
                return .reply(Reply(552, "5.3.4", "The message is larger than the \(options.limits.maxMessageBytes) bytes this server takes."))
            }
            transaction = Transaction(sender: sender, parameters: parameters)
            return .reply(Reply(250, "2.1.0", "Sender OK"))
        case .recipient(let recipient):
            guard var current = transaction else { return .reply(.badSequence("Say MAIL FROM first.")) }
            guard current.recipients.count < options.limits.maxRecipients else {
                return .reply(Reply(452, "4.5.3", "Too many recipients: this server takes \(options.limits.maxRecipients) per message."))
            }
            current.recipients.append(recipient)
            transaction = current
            return .reply(Reply(250, "2.1.5", "Recipient OK"))
        case .data:
            guard let transaction else { return .reply(.badSequence("Say MAIL FROM first.")) }
            guard !transaction.recipients.isEmpty else { return .reply(Reply(554, "5.5.1", "No recipient has been accepted.")) }
            phase = .text(DataReader(maxBytes: options.limits.maxMessageBytes, maxLineBytes: options.limits.maxTextLineBytes,
                                     expectedBytes: transaction.parameters.size))
            return .reply(Reply(354, nil, "End the message with a line holding only a dot (<CR><LF>.<CR><LF>)."))
        case .reset:
            transaction = nil
            return .reply(.ok())
        case .noop:
            return .reply(.ok())
        case .quit:
            phase = .closed
            return .close(Reply(221, "2.0.0", "\(options.hostname) closing; goodbye."))
        case .verify:
            return .reply(Reply(252, "2.5.0", "Cannot verify a user, but will take mail for any."))
        case .help:
            return .reply(Reply(214, "2.0.0", "Commands: \(commandNames.joined(separator: " "))"))
        case .startTLS:
            guard offersTLS else { return .reply(Reply(502, "5.5.1", "STARTTLS is not offered here.")) }
            // RFC 3207 4.2: the session starts again, and nothing sent before the handshake counts.
            isTLS = true
            client = nil
            extended = false
            transaction = nil
            user = nil
            position = input.count
            return .startTLS(Reply(220, "2.0.0", "Ready to start TLS"))
        case .auth(let mechanism, let initial):
            guard offersAuth else { return .reply(Reply(502, "5.5.1", "AUTH is not offered here.")) }
            guard client != nil, extended else { return .reply(.badSequence("Say EHLO first.")) }
            guard user == nil else { return .reply(.badSequence("Already logged in.")) }
            guard transaction == nil else { return .reply(.badSequence("AUTH is not allowed during a message.")) }
            switch mechanism {
            case "PLAIN":
                guard let initial else {
                    phase = .authPlain
                    return .reply(Reply(334, nil, ""))
                }
                return plain(Array(initial.utf8))
            case "LOGIN":
                guard let initial else {
                    phase = .authLoginUser
                    return .reply(Reply(334, nil, "VXNlcm5hbWU6"))  // "Username:"
                }
                return loginUser(Array(initial.utf8))
            default:
                return .reply(Reply(504, "5.5.4", "This server logs in with PLAIN or LOGIN."))
            }
        }
    }

    private func ehloReply(_ name: String) -> Reply {
        var lines = ["\(options.hostname) greets \(name)", "PIPELINING", "SIZE \(options.limits.maxMessageBytes)",
                     "8BITMIME", "SMTPUTF8", "ENHANCEDSTATUSCODES"]
        if offersTLS { lines.append("STARTTLS") }
        if offersAuth { lines.append("AUTH PLAIN LOGIN") }
        lines.append("HELP")
        return Reply(250, nil, lines)
    }

    private var commandNames: [String] {
        ["EHLO", "HELO", "MAIL", "RCPT", "DATA", "RSET", "NOOP", "QUIT", "VRFY", "HELP"]
            + (offersTLS ? ["STARTTLS"] : []) + (offersAuth ? ["AUTH"] : [])
    }

    private var offersTLS: Bool { options.canStartTLS && !isTLS }

    private var offersAuth: Bool {
        switch options.authentication {
        case .off: false
        case .acceptAny: true
        case .passwords(_, let overPlainText): isTLS || overPlainText
        }
    }

    // MARK: Message text

    private mutating func finishText(_ reader: DataReader, _ outcome: DataReader.Outcome) -> Step {
        let finished = transaction
        transaction = nil
        switch outcome {
        case .tooLarge:
            phase = .commands
            return .reply(Reply(552, "5.3.4", "The message is larger than the \(options.limits.maxMessageBytes) bytes this server takes."))
        case .lineTooLong:
            phase = .commands
            return .reply(Reply(500, "5.5.6", "A line of the message is longer than \(options.limits.maxTextLineBytes) bytes."))
        case .complete:
            guard let finished else {
                phase = .commands
                return .reply(.badSequence("No message was under way."))
            }
            phase = .waitingForStore
            let envelope = Envelope(
                client: client ?? "", sender: finished.sender, recipients: finished.recipients,
                eightBit: finished.parameters.eightBit, utf8: finished.parameters.utf8, user: user)
            return .deliver(ReceivedMessage(envelope: envelope, text: reader.text))
        }
    }

    // MARK: Logging in

    private mutating func authResponse(_ line: [UInt8]) -> Step {
        let current = phase
        phase = .commands
        if line == [UInt8(ascii: "*")] { return .reply(Reply(501, "5.0.0", "Logging in was cancelled.")) }
        switch current {
        case .authPlain: return plain(line)
        case .authLoginUser: return loginUser(line)
        case .authLoginPassword(let name):
            guard let password = Base64.decode(line) else { return .reply(notBase64) }
            return check(name, String(decoding: password, as: UTF8.self))
        default: return .reply(.badSequence("Not logging in."))
        }
    }

    /// RFC 4616: base64 of `authorization-id NUL user NUL password`.
    private mutating func plain(_ encoded: [UInt8]) -> Step {
        guard let decoded = Base64.decode(encoded) else { return .reply(notBase64) }
        let parts = decoded.split(separator: 0, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .reply(.syntax("PLAIN needs an identity, a user and a password, separated by NUL.")) }
        return check(String(decoding: parts[1], as: UTF8.self), String(decoding: parts[2], as: UTF8.self))
    }

    private mutating func loginUser(_ encoded: [UInt8]) -> Step {
        guard let name = Base64.decode(encoded) else { return .reply(notBase64) }
        phase = .authLoginPassword(user: String(decoding: name, as: UTF8.self))
        return .reply(Reply(334, nil, "UGFzc3dvcmQ6"))  // "Password:"
    }

    private mutating func check(_ name: String, _ password: String) -> Step {
        let accepted: Bool
        switch options.authentication {
        case .off: accepted = false
        case .acceptAny: accepted = true
        case .passwords(let check, _):
            // An address still waiting after wrong logins is not checked at all: that is what
            // makes guessing slow, however many sessions it opens or commands it pipelines.
            if let seconds = options.throttle?.wait(peer) {
                return refuseLogin(Reply(454, "4.7.0", "Too many failed logins from your address; try again in \(seconds) s."))
            }
            accepted = check(name, password)
        }
        guard accepted else {
            options.throttle?.failed(peer, name)
            return refuseLogin(Reply(535, "5.7.8", "The user name or password is wrong."))
        }
        user = name
        return .reply(Reply(235, "2.7.0", "Logged in."))
    }

    /// `reply`, or 421 and the end of the session at the third refused login.
    private mutating func refuseLogin(_ reply: Reply) -> Step {
        failedLogins += 1
        guard failedLogins < Self.maxFailedLogins else {
            phase = .closed
            return .close(Reply(421, "4.7.0", "Too many failed logins; closing."))
        }
        return .reply(reply)
    }

    private var notBase64: Reply { Reply(501, "5.5.2", "That is not base64.") }
}
