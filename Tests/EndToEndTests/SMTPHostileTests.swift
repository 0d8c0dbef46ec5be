import Glibc
import Testing

/// The real program's SMTP listener against clients that break the rules: smuggled messages,
/// over-long lines, NUL bytes, floods of pipelined commands, slow clients, too many recipients,
/// commands out of order, plaintext behind STARTTLS, messages over the size limit. Each test
/// has a server of its own and ends by checking that a fresh session is still served and that
/// the server stops cleanly.
@Suite struct SMTPHostileTests {
    // MARK: Smuggling

    /// An ending that some servers take for the end of the message and others do not.
    struct FalseEnding: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        var testDescription: String { name }
    }

    static let falseEndings: [FalseEnding] = [
        FalseEnding(name: "LF.LF", bytes: "\n.\n"),
        FalseEnding(name: "CR.LF", bytes: "\r.\n"),
        FalseEnding(name: "LF.CRLF", bytes: "\n.\r\n"),
        FalseEnding(name: "CRLF.LF", bytes: "\r\n.\n"),
        FalseEnding(name: "CRLF.CR", bytes: "\r\n.\r"),
        FalseEnding(name: "CR.CR", bytes: "\r.\r"),
        FalseEnding(name: "CRLF.CRCRLF", bytes: "\r\n.\r\r\n"),
    ]

    /// RFC 5321 4.1.1.4: the text ends at CRLF.CRLF and nothing else. A second transaction behind
    /// a false ending is text of the first message: one message is stored, holding it all, and
    /// no command behind the false ending is answered.
    @Test(arguments: falseEndings)
    func aSecondMessageBehindAFalseEndingIsTextOfTheFirst(ending: FalseEnding) throws {
        let server = try SMTPTestServer("smtp-smuggling")
        let client = try server.session()
        let text = "Subject: Smuggling \(ending.name)\r\nFrom: sender@example.test\r\n\r\nThe first message."
            + ending.bytes
            + "MAIL FROM:<spoof@example.test>\r\nRCPT TO:<victim@example.test>\r\nDATA\r\n"
            + "Subject: Smuggled\r\nFrom: spoof@example.test\r\n\r\nThe smuggled message.\r\n"
        for (line, code) in [("MAIL FROM:<sender@example.test>", 250), ("RCPT TO:<inbox@example.test>", 250), ("DATA", 354)] {
            #expect(try client.command(line).code == code, "\(line)")
        }
        try client.send(text + ".\r\nQUIT\r\n")
        let rest = try client.readUntilClosed()
        // Exactly the 250 for the one message, then the 221 for QUIT: no 250/250/354/250 of a second.
        let lines = String(decoding: rest, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(lines.count == 2 && lines.first?.hasPrefix("250 2.0.0 Stored as message ") == true
                    && lines.last?.hasPrefix("221 ") == true,
                "after the text: \(SMTPClient.show(rest))")
        let stored = lines.first.flatMap { Int($0.dropFirst("250 2.0.0 Stored as message ".count)) }
        let id = try #require(stored, "no message number in \(lines)")

        let rows = try server.mailroom.inboxRows()
        #expect(rows.map(\.id) == [id] && rows.map(\.subject) == ["Smuggling \(ending.name)"], "Inbox: \(rows)")
        let raw = try #require(try server.mailroom.rawMessage(id))
        #expect(SMTPClient.show(raw, limit: .max) == SMTPClient.show(Self.unstuffed(Array(text.utf8)), limit: .max))
        #expect(raw.firstRange(of: Array("MAIL FROM:<spoof@example.test>".utf8)) != nil)
        #expect(raw.firstRange(of: Array("Subject: Smuggled".utf8)) != nil)
        #expect(try server.mailroom.rawMessage(id + 1) == nil)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Lines

    /// RFC 5321 4.5.3.1.4: a command line is at most 512 bytes with its CRLF. A longer one is
    /// 500 5.5.6, whether it comes at once or in pieces, and is not acted on; the session goes on.
    @Test func anOverLongCommandLineIsRefusedAndTheSessionGoesOn() throws {
        let server = try SMTPTestServer("smtp-long-command")
        let client = try server.session()
        // 600 bytes.
        let long = try client.command("NOOP " + String(repeating: "x", count: 593))
        #expect(long.code == 500 && long.status == "5.5.6", "\(long)")
        #expect(try client.command("NOOP").code == 250)

        // The limit itself: 512 bytes with the CRLF is a command, 513 is not.
        #expect(try client.command("NOOP " + String(repeating: "y", count: 505)).code == 250)
        #expect(try client.command("NOOP " + String(repeating: "y", count: 506)).code == 500)

        // An over-long MAIL starts no transaction.
        let mail = try client.command("MAIL FROM:<" + String(repeating: "a", count: 600) + "@example.test>")
        #expect(mail.code == 500 && mail.status == "5.5.6", "\(mail)")
        #expect(try client.command("RCPT TO:<inbox@example.test>").code == 503)

        // 100 KB of one line in four writes, then its end and a NOOP: one 500 for it all, then 250.
        let chunk = [UInt8](repeating: UInt8(ascii: "z"), count: 25_000)
        try client.send(Array("NOOP ".utf8) + chunk)
        for _ in 0..<3 { try client.send(chunk) }
        try client.send("\r\nNOOP\r\n")
        let replies = try client.readReplies(2)
        #expect(replies.map(\.code) == [500, 250], "\(replies)")
        #expect(replies.first?.status == "5.5.6")
        #expect(try client.command("QUIT").code == 221)
        #expect(try client.readUntilClosed().isEmpty)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// A NUL byte in a command is an error reply (and starts nothing), not a crash.
    @Test func nulBytesInACommandAreRefused() throws {
        let server = try SMTPTestServer("smtp-nul")
        let client = try server.session()
        for line in ["NO\u{0}OP", "\u{0}\u{0}\u{0}", "EHLO a\u{0}b.example.test", "MAIL FROM:<a\u{0}b@example.test>"] {
            let reply = try client.command(line)
            #expect((500...599).contains(reply.code), "\(SMTPClient.show(Array(line.utf8))) was answered \(reply)")
        }
        // The refused MAIL started no transaction; the session is still in order.
        #expect(try client.command("RCPT TO:<inbox@example.test>").code == 503)
        #expect(try client.command("NOOP").code == 250)
        let stored = try client.sendMessage("Subject: After the NULs\r\n\r\nStill here.\r\n")
        #expect(stored.storedMessage != nil, "\(stored)")
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Pipelining

    /// RFC 2920: 5,000 commands in one write are answered, each once, in order.
    @Test func aFloodOfPipelinedCommandsIsAnsweredInOrder() throws {
        let server = try SMTPTestServer("smtp-flood")
        let client = try server.session()
        let kinds: [(command: String, code: Int)] = [("NOOP", 250), ("HELP", 214), ("VRFY someone", 252), ("XYZZY", 500), ("RSET", 250)]
        let count = 5_000
        var bytes: [UInt8] = []
        for index in 0..<count { bytes += Array((kinds[index % kinds.count].command + "\r\n").utf8) }
        try client.send(bytes)
        let replies = try client.readReplies(count, within: 30)
        let expected = (0..<count).map { kinds[$0 % kinds.count].code }
        let firstWrong = zip(replies.map(\.code), expected).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstWrong == nil, "reply \(firstWrong?.offset ?? -1) is \(firstWrong.map { replies[$0.offset] }.map(String.init(describing:)) ?? "")")
        // Nothing more than one reply each.
        #expect(try client.command("QUIT").code == 221)
        #expect(try client.readUntilClosed().isEmpty)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// 200 whole transactions in one write: each MAIL, RCPT, DATA and text is answered in order,
    /// and the 200 messages are stored, each under the number its 250 gave.
    @Test func twoHundredPipelinedTransactionsAreEachStored() throws {
        let server = try SMTPTestServer("smtp-pipelined")
        let client = try server.session()
        let count = 200
        var bytes: [UInt8] = []
        for index in 0..<count {
            bytes += Array("MAIL FROM:<s\(index)@example.test>\r\nRCPT TO:<inbox@example.test>\r\nDATA\r\n".utf8)
            bytes += Array(Self.pipelinedText(index).utf8) + Array(".\r\n".utf8)
        }
        bytes += Array("QUIT\r\n".utf8)
        try client.send(bytes)
        let replies = try client.readReplies(count * 4 + 1, within: 60)
        var ids: [Int: Int] = [:]
        for index in 0..<count {
            let four = Array(replies[(index * 4)..<(index * 4 + 4)])
            #expect(four.map(\.code) == [250, 250, 354, 250], "transaction \(index): \(four)")
            ids[index] = four[3].storedMessage
        }
        #expect(replies.last?.code == 221)
        let numbers = (0..<count).compactMap { ids[$0] }
        #expect(numbers.count == count)
        #expect(numbers == numbers.sorted() && Set(numbers).count == count, "the numbers are not ascending: \(numbers)")

        let rows = try server.mailroom.inboxRows()
        #expect(rows.count == count)
        let subjectOf = Dictionary(rows.map { ($0.id, $0.subject) }, uniquingKeysWith: { first, _ in first })
        for index in 0..<count {
            #expect(ids[index].flatMap { subjectOf[$0] } == "Pipelined \(index)", "message \(index), stored as \(ids[index] ?? -1)")
        }
        for index in [0, count - 1] {
            let raw = try ids[index].flatMap { try server.mailroom.rawMessage($0) }
            #expect(raw.map { SMTPClient.show($0) } == SMTPClient.show(Array(Self.pipelinedText(index).utf8)))
        }
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// A client that pipelines command after command and reads none of the replies: the server
    /// stops reading once a bounded amount of replies waits, instead of holding them all in
    /// memory; when the client reads, every command is answered, in order.
    @Test func aClientThatReadsNoRepliesIsNotReadWithoutBound() throws {
        let server = try SMTPTestServer("smtp-unread-replies")
        let client = try SMTPClient(port: server.smtpPort, sendBufferBytes: 65_536)
        #expect(try client.readReply().code == 220)
        let before = try Self.residentKilobytes(of: server.mailroom)
        // 4 MB of HELP (500,000 replies, 35 MB of them), more than the kernel's buffers hold.
        let command = Array("HELP\r\n".utf8)
        var flood = [UInt8](repeating: 0, count: 4_000_002)
        flood.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = command[index % command.count] }
        }
        // The one wait on time: a second in which the server takes no byte more is the server
        // no longer reading (a server that read on would take all 4 MB).
        let taken = try client.sendWithoutReading(flood, givingUpAfter: 1)
        let grown = try Self.residentKilobytes(of: server.mailroom) - before
        #expect(taken < flood.count, "the server took all \(flood.count) bytes from a client that read none of its replies")
        #expect(grown < 16 * 1024, "the server grew by \(grown) kB while the replies waited")

        // The client reads now: each command taken is answered (the last one completed first).
        let rest = taken % command.count == 0 ? [] : Array(flood[taken..<(taken - taken % command.count + command.count)])
        try client.send(rest + Array("NOOP\r\n".utf8))
        let count = (taken + rest.count) / command.count
        let replies = try client.readReplies(count + 1, within: 60)
        let wrong = replies.dropLast().firstIndex { $0.code != 214 }
        #expect(wrong == nil, "reply \(wrong ?? -1) is \(wrong.map { String(describing: replies[$0]) } ?? "")")
        #expect(replies.last?.code == 250)
        #expect(try client.command("QUIT").code == 221)
        #expect(try client.readUntilClosed().isEmpty)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// With --smtp-idle-timeout 1, a client that sends and sends and takes none of its replies
    /// is cut off a second after the server stopped getting any of them out.
    @Test func aClientThatTakesNoRepliesIsCutOffAfterTheIdleTimeout() throws {
        let server = try SMTPTestServer("smtp-unread-idle", extra: ["--smtp-idle-timeout", "1"])
        let client = try SMTPClient(port: server.smtpPort, sendBufferBytes: 65_536)
        var flood = [UInt8](repeating: 0, count: 4_000_002)
        let command = Array("HELP\r\n".utf8)
        flood.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = command[index % command.count] }
        }
        let taken = try client.sendWithoutReading(flood, givingUpAfter: 1)
        #expect(taken < flood.count)
        #expect(client.waitForReset(within: 15), "the connection is still open")
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Slow clients

    /// A client that sends a byte at a time gets its replies all the same, and none before its
    /// line is whole; a message whose final CRLF.CRLF comes in five pieces is stored.
    @Test func aClientSendingAByteAtATimeIsServed() throws {
        let server = try SMTPTestServer("smtp-slow")
        let client = try server.session(ehlo: nil)
        let ehlo = Array("EHLO slow.example.test\r\n".utf8)
        for (index, byte) in ehlo.enumerated() {
            try client.send([byte])
            if index < ehlo.count - 1 {
                client.dawdle(0.002)
                #expect(client.unread.isEmpty, "a reply before the line was whole, after \(index + 1) bytes")
            }
        }
        let reply = try client.readReply()
        #expect(reply.code == 250 && reply.lines.contains("PIPELINING"), "\(reply)")

        for line in ["MAIL FROM:<slow@example.test>\r\n", "RCPT TO:<inbox@example.test>\r\n", "DATA\r\n"] {
            for byte in Array(line.utf8) {
                try client.send([byte])
                client.dawdle(0.001)
            }
            #expect(try client.readReply().code == (line == "DATA\r\n" ? 354 : 250))
        }
        let text = "Subject: Slow\r\n\r\nA byte at a time.\r\n..stuffed\r\n"
        var pieces: [[UInt8]] = []
        var rest = Array(text.utf8)[...]
        while !rest.isEmpty {
            let size = min(3, rest.count)
            pieces.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        pieces += [[UInt8(ascii: ".")], [13]]
        for piece in pieces {
            try client.send(piece)
            client.dawdle(0.002)
        }
        // Checked before the last byte: once the final LF is sent, the reply may come at once.
        #expect(client.unread.isEmpty, "a reply before the text was complete")
        try client.send([10])
        let stored = try client.readReply()
        let id = try #require(stored.storedMessage, "\(stored)")
        #expect(try server.mailroom.rawMessage(id).map { SMTPClient.show($0) } == #"Subject: Slow\r\n\r\nA byte at a time.\r\n.stuffed\r\n"#)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Recipients

    /// 10,000 RCPTs in one write: the first 100 are accepted, the rest told 452 4.5.3; the
    /// message then goes to the accepted ones and is stored once.
    @Test func tenThousandRecipientsGetOneHundredAcceptedAndTheRest452() throws {
        let server = try SMTPTestServer("smtp-recipients")
        let client = try server.session()
        #expect(try client.command("MAIL FROM:<many@example.test>").code == 250)
        let count = 10_000
        var bytes: [UInt8] = []
        for index in 0..<count { bytes += Array("RCPT TO:<r\(index)@example.test>\r\n".utf8) }
        try client.send(bytes)
        let replies = try client.readReplies(count, within: 60)
        let accepted = replies.prefix { $0.code == 250 }
        #expect(accepted.count == 100)
        #expect(accepted.allSatisfy { $0.status == "2.1.5" })
        let refused = replies.dropFirst(accepted.count)
        #expect(refused.count == count - 100)
        #expect(refused.allSatisfy { $0.code == 452 && $0.status == "4.5.3" }, "\(refused.first { $0.code != 452 }.map(String.init(describing:)) ?? "")")
        #expect(try client.command("DATA").code == 354)
        try client.send("Subject: To many\r\n\r\nOne message.\r\n.\r\n")
        let stored = try client.readReply()
        #expect(stored.code == 250, "\(stored)")
        let id = try #require(stored.storedMessage)
        #expect(stored.text.hasSuffix("Stored as message \(id)"), "one message, one number: \(stored)")
        let rows = try server.mailroom.inboxRows()
        #expect(rows.map(\.id) == [id] && rows.map(\.subject) == ["To many"], "Inbox: \(rows)")
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Order of commands

    /// MAIL, RCPT and DATA before EHLO are 503; so are RCPT before MAIL and DATA before MAIL.
    @Test func commandsOutOfOrderAre503() throws {
        let server = try SMTPTestServer("smtp-order")
        let client = try server.session(ehlo: nil)
        for line in ["MAIL FROM:<a@example.test>", "RCPT TO:<b@example.test>", "DATA"] {
            let reply = try client.command(line)
            #expect(reply.code == 503 && reply.status == "5.5.1", "\(line) before EHLO: \(reply)")
        }
        #expect(try client.command("EHLO late.example.test").code == 250)
        for line in ["RCPT TO:<b@example.test>", "DATA"] {
            let reply = try client.command(line)
            #expect(reply.code == 503, "\(line) before MAIL: \(reply)")
        }
        // A refused DATA starts no text: the next line is a command.
        #expect(try client.command("NOOP").code == 250)
        #expect(try client.sendMessage("Subject: In order\r\n\r\nFine.\r\n").storedMessage != nil)
        #expect(try server.mailroom.inboxRows().map(\.subject) == ["In order"])
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// DATA after MAIL without an accepted RCPT is refused (503 or 554), and what follows it is
    /// read as commands, not as a message.
    @Test func dataWithoutARecipientIsRefused() throws {
        let server = try SMTPTestServer("smtp-no-rcpt")
        let client = try server.session()
        #expect(try client.command("MAIL FROM:<a@example.test>").code == 250)
        // A refused recipient does not count.
        #expect(try client.command("RCPT TO:<>").code == 501)
        let data = try client.command("DATA")
        #expect(data.code == 503 || data.code == 554, "\(data)")
        try client.send("Subject: Not a message\r\n\r\n.\r\n")
        let replies = try client.readReplies(3)
        #expect(replies.map(\.code) == [500, 500, 500], "the lines after a refused DATA: \(replies)")
        #expect(try client.command("RCPT TO:<inbox@example.test>").code == 250)
        #expect(try client.command("DATA").code == 354)
        try client.send("Subject: With a recipient\r\n\r\nStored.\r\n.\r\n")
        #expect(try client.readReply().storedMessage != nil)
        #expect(try server.mailroom.inboxRows().map(\.subject) == ["With a recipient"])
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// Without a certificate or passwords, EHLO offers exactly the fixed extensions, and
    /// STARTTLS and AUTH are refused.
    @Test func ehloOffersTheFixedExtensions() throws {
        let server = try SMTPTestServer("smtp-ehlo")
        let client = try server.session(ehlo: nil)
        let ehlo = try client.command("EHLO list.example.test")
        #expect(ehlo.code == 250)
        #expect(Array(ehlo.lines.dropFirst()) == ["PIPELINING", "SIZE 26214400", "8BITMIME", "SMTPUTF8", "ENHANCEDSTATUSCODES", "HELP"], "\(ehlo)")
        #expect(try client.command("STARTTLS").code == 502)
        #expect(try client.command("AUTH PLAIN AGEAYg==").code == 502)
        #expect(try client.command("NOOP").code == 250)
        #expect(try server.stop() == 0)
    }

    // MARK: STARTTLS

    /// RFC 3207 4.2 (and CVE-2011-0411): a command sent in plaintext behind STARTTLS, in the same
    /// write, is thrown away, never answered. The connection then waits for a TLS handshake.
    @Test func plaintextBehindStartTLSIsNotAnswered() throws {
        let certificate = try SelfSignedCertificate()
        let server = try SMTPTestServer("smtp-starttls", extra: ["--smtp-tls-cert", certificate.certificate, "--smtp-tls-key", certificate.key])
        let client = try server.session(ehlo: nil)
        let ehlo = try client.command("EHLO tls.example.test")
        #expect(ehlo.lines.contains("STARTTLS"), "\(ehlo)")
        try client.send("STARTTLS\r\nNOOP\r\nMAIL FROM:<injected@example.test>\r\n")
        let ready = try client.readReply()
        #expect(ready.code == 220 && ready.status == "2.0.0", "\(ready)")
        // No handshake comes: once the server sees the end of the input it closes, and before
        // that it must have said nothing more in plaintext.
        client.shutdownWriting()
        let after = try client.readUntilClosed()
        #expect(SMTPClient.show(after) == "", "answered in plaintext after STARTTLS")
        #expect(try server.mailroom.answersAFreshSMTPSession())
        // A session that does not pipeline is served too (and still offers STARTTLS).
        let other = try server.session()
        #expect(try other.command("STARTTLS").code == 220)
        other.close()
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Size limits

    /// With --max-message-size 100000: SIZE says so, a MAIL announcing more is 552, and 200 KB
    /// of text is read to its end and then refused with 552 5.3.4; the next message in the
    /// same session is stored.
    @Test func aMessageOverTheSizeLimitIsRefusedAndTheSessionGoesOn() throws {
        let server = try SMTPTestServer("smtp-size", extra: ["--max-message-size", "100000"])
        let client = try server.session(ehlo: nil)
        let ehlo = try client.command("EHLO big.example.test")
        #expect(ehlo.lines.contains("SIZE 100000"), "\(ehlo)")
        let announced = try client.command("MAIL FROM:<big@example.test> SIZE=200000")
        #expect(announced.code == 552 && announced.status == "5.3.4", "\(announced)")

        let line = String(repeating: "y", count: 98) + "\r\n"
        let big = "Subject: Too big\r\n\r\n" + String(repeating: line, count: 2_000)
        let refused = try client.sendMessage(big)
        #expect(refused.code == 552 && refused.status == "5.3.4", "\(refused)")
        let stored = try client.sendMessage("Subject: Small after big\r\n\r\nFits.\r\n")
        let id = try #require(stored.storedMessage, "\(stored)")
        let rows = try server.mailroom.inboxRows()
        #expect(rows.map(\.id) == [id] && rows.map(\.subject) == ["Small after big"], "Inbox: \(rows)")
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// A line of text longer than 65,536 bytes: the message is read to its end, refused with
    /// 500 5.5.6, and not stored; the session goes on.
    @Test func aMessageWithAnOverLongLineIsRefusedAndTheSessionGoesOn() throws {
        let server = try SMTPTestServer("smtp-long-line")
        let client = try server.session()
        let refused = try client.sendMessage("Subject: Long line\r\n\r\n" + String(repeating: "w", count: 70_000) + "\r\nafter\r\n")
        #expect(refused.code == 500 && refused.status == "5.5.6", "\(refused)")
        let stored = try client.sendMessage("Subject: Short lines\r\n\r\nFine.\r\n")
        let id = try #require(stored.storedMessage, "\(stored)")
        #expect(try server.mailroom.inboxRows().map(\.id) == [id])
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    // MARK: Connections

    /// With --smtp-idle-timeout 1, a silent session is told 421 4.4.2 and closed.
    @Test func aSilentSessionIsClosedWith421() throws {
        let server = try SMTPTestServer("smtp-idle", extra: ["--smtp-idle-timeout", "1"])
        let client = try server.session()
        let reply = try client.readReply(within: 10)
        #expect(reply.code == 421 && reply.status == "4.4.2", "\(reply)")
        #expect(try client.readUntilClosed().isEmpty)
        #expect(try server.mailroom.answersAFreshSMTPSession())
        #expect(try server.stop() == 0)
    }

    /// With --smtp-max-connections 2, a third session is told 421 4.7.0 and closed; once one of
    /// the two ends, a new one is served.
    @Test func aSessionOverTheConnectionLimitIsTold421() throws {
        let server = try SMTPTestServer("smtp-max-connections", extra: ["--smtp-max-connections", "2"])
        let first = try server.session()
        let second = try server.session()
        let third = try SMTPClient(port: server.smtpPort)
        let busy = try third.readReply()
        #expect(busy.code == 421 && busy.status == "4.7.0", "\(busy)")
        #expect(try third.readUntilClosed().isEmpty)
        // The two admitted sessions still work.
        #expect(try first.command("NOOP").code == 250)
        #expect(try second.command("NOOP").code == 250)
        #expect(try first.command("QUIT").code == 221)
        _ = try first.readUntilClosed()
        // The server counts the first one out when it has closed it; until then a newcomer may
        // still be told 421, so try until one is greeted.
        let deadline = Deadline(10)
        var greeted = false
        while !greeted && !deadline.hasPassed {
            let next = try SMTPClient(port: server.smtpPort)
            greeted = try next.readReply().code == 220
        }
        #expect(greeted, "no session was admitted after one of the two ended")
        #expect(try server.stop() == 0)
    }

    // MARK: Helpers

    /// The program's resident memory (VmRSS), in kB.
    static func residentKilobytes(of mailroom: RunningMailroom) throws -> Int {
        let file = "/proc/\(mailroom.program.pid)/status"
        guard let handle = fopen(file, "r") else { throw TestFailure("cannot read \(file)") }
        defer { fclose(handle) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), handle) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") {
                guard let kilobytes = Int(text.dropFirst(6).filter(\.isNumber)) else { break }
                return kilobytes
            }
        }
        throw TestFailure("no VmRSS in \(file)")
    }

    /// The text of a pipelined message.
    static func pipelinedText(_ index: Int) -> String {
        "Subject: Pipelined \(index)\r\nFrom: s\(index)@example.test\r\n\r\nBody \(index).\r\n"
    }

    /// RFC 5321 4.5.2 from the server's side: a dot that starts a line (at the start, or after
    /// a CRLF) is removed.
    static func unstuffed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            let atLineStart = index == 0 || (index >= 2 && bytes[index - 2] == 13 && bytes[index - 1] == 10)
            if byte == UInt8(ascii: "."), atLineStart { continue }
            out.append(byte)
        }
        return out
    }
}

/// A self-signed certificate for localhost and its key, made with the openssl program in a
/// directory of their own, removed with it.
final class SelfSignedCertificate {
    let directory: String
    var certificate: String { directory + "/cert.pem" }
    var key: String { directory + "/key.pem" }

    init() throws {
        var template = Array("/tmp/mailroom-tls-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(errno)") }
        directory = String(cString: made)
        let openssl = try ChildProcess(executable: "/usr/bin/openssl", arguments: [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "2",
            "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
        ])
        let code = try openssl.waitForExit(within: 30)
        guard code == 0 else { throw TestFailure("openssl req exited with \(code): \(openssl.errorText)") }
    }

    deinit {
        unlink(certificate)
        unlink(key)
        rmdir(directory)
    }
}
