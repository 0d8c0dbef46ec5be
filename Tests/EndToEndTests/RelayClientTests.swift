import Glibc
@testable import MailroomNet
import Testing

/// The relay client against Postfix's real smtp-sink: a message arrives as it was stored, the
/// envelope as given, and each refusal or hang-up smtp-sink can be told to make becomes the
/// outcome it should.
@Suite struct RelayClientTests {
    /// Bare LF line ends, lines that start with dots, and no line end at the very end.
    static let text = "Subject: Relay test\nFrom: sender@example.test\n\nThe first line.\n"
        + ".A line that starts with a dot.\n..Two dots.\n.\nThe last line, without a line end."

    static func message(_ text: String = text, to recipients: [String] = ["one@example.test", "two@example.test"]) -> RelayMessage {
        RelayMessage(sender: "sender@example.test", recipients: recipients, bytes: Array(text.utf8))
    }

    static func configuration(port: Int, host: String = "127.0.0.1") -> RelayConfiguration {
        RelayConfiguration(host: host, port: port, timeoutSeconds: 10)
    }

    /// What smtp-sink dumped of the message itself: everything after its three-line Received
    /// header.
    static func messagePart(of dump: String) throws -> String {
        let lines = dump.split(separator: "\n", omittingEmptySubsequences: false)
        let received = try #require(lines.firstIndex { $0.hasPrefix("Received: ") }, "no Received line in \(dump)")
        return lines[(received + 3)...].joined(separator: "\n")
    }

    @Test func aMessageReachesSmtpSinkWithItsLinesAndDotsAsStored() throws {
        let sink = try SMTPSink()
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok"), .accepted("250 2.0.0 Ok")])
        #expect(outcome.askedBeforeEnd == 1)

        // smtp-sink writes lines with LF and adds an empty line.
        let dump = try sink.onlyDump(endingWith: Self.text + "\n\n")
        #expect(dump.contains("X-Helo-Args: mailroom\n"), "\(dump)")
        #expect(dump.contains("X-Mail-Args: <sender@example.test>\n"), "\(dump)")
        #expect(dump.contains("X-Rcpt-Args: <one@example.test>\nX-Rcpt-Args: <two@example.test>\n"), "\(dump)")
        // Each dot the client doubled is single again: the text is what was stored.
        #expect(try Self.messagePart(of: dump) == Self.text + "\n\n")
    }

    /// RFC 6152: BODY=8BITMIME when the text has 8-bit bytes and the relay announces it; not
    /// otherwise (smtp-sink -8 announces nothing).
    @Test(arguments: [([String](), " BODY=8BITMIME"), (["-8"], "")])
    func eightBitTextIsDeclaredWhenTheRelayOffersIt(options: [String], parameter: String) throws {
        let sink = try SMTPSink(options: options)
        let loop = try RelayTestLoop()
        let text = "Subject: Caf\u{e9}\n\nCr\u{e8}me br\u{fb}l\u{e9}e.\n"
        let outcome = try RelayOutcome.send(Self.message(text, to: ["one@example.test"]), on: loop.client(Self.configuration(port: sink.port)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok")])
        let dump = try sink.onlyDump(endingWith: text + "\n")
        #expect(dump.contains("X-Mail-Args: <sender@example.test>\(parameter)\n"), "\(dump)")
        #expect(try Self.messagePart(of: dump) == text + "\n")
    }

    @Test func recipientsTheRelayRefusesAreRefusedAndNoTextIsSent() throws {
        let sink = try SMTPSink(options: ["-f", "RCPT"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port)))
        let refusal = RelayReply.refused("500 5.3.0 Error: command failed (in reply to RCPT TO)")
        #expect(outcome.replies == [refusal, refusal])
        #expect(outcome.askedBeforeEnd == 0)
    }

    struct AfterTheEnd: Sendable, CustomTestStringConvertible {
        let options: [String]
        let check: @Sendable (RelayReply) -> Bool
        var testDescription: String { options.joined(separator: " ") }
    }

    /// After the final dot: 5xx refuses, 4xx defers, and a hang-up leaves the message in doubt.
    static let afterTheEnd: [AfterTheEnd] = [
        AfterTheEnd(options: ["-f", "."]) { $0 == .refused("500 5.3.0 Error: command failed") },
        AfterTheEnd(options: ["-r", "."]) { $0 == .deferred("450 4.3.0 Error: command failed") },
        AfterTheEnd(options: ["-q", "."]) { $0.isDeferred && $0.text.hasPrefix("lost after the end of data: ") },
    ]

    @Test(arguments: afterTheEnd)
    func whatTheRelaySaysAfterTheEndIsEachRecipientsOutcome(_ ending: AfterTheEnd) throws {
        let sink = try SMTPSink(options: ending.options)
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port)))
        #expect(outcome.askedBeforeEnd == 1)
        #expect(outcome.replies.count == 2 && outcome.replies.allSatisfy(ending.check), "\(outcome.replies)")
    }

    /// smtp-sink -A 0 says 550 just behind its 354 and reads no more. Depending on when it
    /// comes (while the text goes, while the caller decides, or once the dot is out) it answers
    /// the text or the end; either way the message is refused.
    @Test func aRefusalWhileTheTextGoesRefusesTheMessage() throws {
        let sink = try SMTPSink(options: ["-A", "0"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port)))
        #expect(outcome.replies.count == 2)
        #expect(outcome.replies.allSatisfy { $0.isRefused && $0.text.hasPrefix("550 This violates SMTP") }, "\(outcome.replies)")
    }

    @Test func a421BeforeTheTextDefersEveryRecipient() throws {
        let sink = try SMTPSink(options: ["-Q", "MAIL"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port)))
        #expect(outcome.replies.count == 2)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.hasPrefix("421 ") && $0.text.hasSuffix("(in reply to MAIL FROM)") },
                "\(outcome.replies)")
        #expect(outcome.askedBeforeEnd == 0)
    }

    /// A name rather than an address is looked up (off the loop) before connecting.
    @Test func aHostNameIsLookedUp() throws {
        let sink = try SMTPSink()
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: sink.port, host: "localhost")))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok"), .accepted("250 2.0.0 Ok")])
    }

    @Test func aRelayThatIsNotListeningDefersWithTheReason() throws {
        let held = try FreePort.Held()
        let port = held.port
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: port)))
        let expected = RelayReply.deferred("The connection to 127.0.0.1:\(port) failed: Connection refused.")
        #expect(outcome.replies == [expected, expected])
        withExtendedLifetime(held) {}
    }

    @Test func anUnknownHostDefersWithTheReason() throws {
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(port: 25, host: "relay.invalid")))
        #expect(outcome.replies.count == 2)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.hasPrefix("The relay host relay.invalid cannot be resolved") },
                "\(outcome.replies)")
    }

    /// An address with a line break would smuggle a command of its own: refused, never sent.
    @Test func anAddressWithALineBreakIsRefusedWithoutConnecting() throws {
        let loop = try RelayTestLoop()
        let message = RelayMessage(sender: "sender@example.test", recipients: ["one@example.test>\r\nRCPT TO:<two@example.test"], bytes: [])
        let outcome = try RelayOutcome.send(message, on: loop.client(Self.configuration(port: 9)))
        #expect(outcome.replies.count == 1 && outcome.replies.allSatisfy(\.isRefused), "\(outcome.replies)")
    }
}
