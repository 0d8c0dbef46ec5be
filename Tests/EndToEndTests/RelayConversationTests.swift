@testable import MailroomNet
import Testing

/// The relay client's pure parts, without a socket: the text as DATA carries it, replies read
/// from bytes however they are cut, EHLO's extensions, and turns of the conversation.
@Suite struct RelayConversationTests {
    // MARK: The text

    @Test(arguments: [
        ("", ""),
        ("a", "a\r\n"),
        ("a\nb\n", "a\r\nb\r\n"),
        ("a\r\nb\r\n", "a\r\nb\r\n"),
        (".\n", "..\r\n"),
        ("a\n.b\n..c\r\n", "a\r\n..b\r\n...c\r\n"),
        ("a.b\n", "a.b\r\n"),
        ("a\rb\n", "a\rb\r\n"),
    ])
    func theTextHasCRLFLineEndsAndDoubledLeadingDots(stored: String, sent: String) {
        #expect(RelayText.prepared(Array(stored.utf8)) == Array(sent.utf8))
    }

    // MARK: Replies

    static func replies(_ pieces: [String]) -> [Result<RelayServerReply, RelayProtocolError>] {
        var reader = RelayReplyReader()
        var out: [Result<RelayServerReply, RelayProtocolError>] = []
        for piece in pieces {
            reader.receive(Array(piece.utf8))
            while let next = reader.next() {
                out.append(next)
                if case .failure = next { return out }
            }
        }
        return out
    }

    /// smtp-sink ends its EHLO reply with "250 " and nothing after it.
    @Test func aMultiLineReplyIsOneReplyHoweverItIsCut() throws {
        let text = "250-smtp-sink\r\n250-PIPELINING\r\n250-SIZE 1000\r\n250-AUTH=LOGIN PLAIN\r\n250 \r\n"
        let whole = Self.replies([text])
        let cut = Self.replies(text.map { String($0) })
        let expected = RelayServerReply(code: 250, lines: ["smtp-sink", "PIPELINING", "SIZE 1000", "AUTH=LOGIN PLAIN", ""])
        #expect(whole == [.success(expected)])
        #expect(cut == [.success(expected)])

        let extensions = RelayExtensions(ehlo: expected)
        #expect(extensions.pipelining && !extensions.startTLS && !extensions.eightBitMIME)
        #expect(extensions.maxMessageBytes == 1000 && extensions.announcesSize)
        #expect(extensions.authMechanisms == ["LOGIN", "PLAIN"])
        #expect(expected.text == "250 smtp-sink PIPELINING SIZE 1000 AUTH=LOGIN PLAIN")
    }

    /// A reply that is not one, by what is wrong with it.
    struct BrokenReply: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let reason: String
        var testDescription: String { name }
    }

    static let brokenReplies: [BrokenReply] = [
        BrokenReply(name: "no code", bytes: "hello\r\n", reason: "not a reply"),
        BrokenReply(name: "code changed", bytes: "250-a\r\n251 b\r\n", reason: "changed its code"),
        BrokenReply(name: "code below 200", bytes: "099 nope\r\n", reason: "not a reply"),
        BrokenReply(name: "no separator", bytes: "250x\r\n", reason: "not a reply"),
        BrokenReply(name: "line too long", bytes: "250 " + String(repeating: "x", count: 2_100), reason: "longer than 2048"),
        BrokenReply(name: "too many lines", bytes: String(repeating: "250-x\r\n", count: 101) + "250 x\r\n", reason: "more than 100 lines"),
    ]

    @Test(arguments: brokenReplies)
    func aBrokenReplyIsAProtocolError(_ broken: BrokenReply) {
        let results = Self.replies([broken.bytes])
        guard case .failure(let error)? = results.last else {
            Issue.record("no error: \(results)")
            return
        }
        #expect(error.reason.contains(broken.reason), "\(error.reason)")
    }

    // MARK: Turns

    static func reply(_ code: Int, _ lines: String...) -> RelayServerReply {
        RelayServerReply(code: code, lines: lines)
    }

    static func sent(_ action: RelayConversation.Action) -> String? {
        guard case .send(let bytes) = action else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func eightBitTextAndAnnouncedExtensionsShapeMailFrom() {
        let configuration = RelayConfiguration(host: "relay.example.test", port: 25, tls: .none, heloName: "box.example.test")
        let message = RelayMessage(sender: "a@example.test", recipients: ["b@example.test"], bytes: Array("\u{e9}\n".utf8))
        var conversation = RelayConversation(configuration: configuration, message: message, textSize: 4)
        #expect(Self.sent(conversation.receive(Self.reply(220, "relay ESMTP"))) == "EHLO box.example.test\r\n")
        let ehlo = Self.reply(250, "relay", "8BITMIME", "SIZE 0", "STARTTLS")
        // tls: .none leaves STARTTLS alone; SIZE 0 names no limit but is still declared.
        #expect(Self.sent(conversation.receive(ehlo)) == "MAIL FROM:<a@example.test> SIZE=4 BODY=8BITMIME\r\n")
        #expect(Self.sent(conversation.receive(Self.reply(250, "ok"))) == "RCPT TO:<b@example.test>\r\n")
        #expect(Self.sent(conversation.receive(Self.reply(250, "ok"))) == "DATA\r\n")
        #expect(!conversation.isInsideData)
        #expect(conversation.receive(Self.reply(354, "go on")) == .sendText)
        #expect(conversation.isInsideData)
        #expect(conversation.decided(true) == .send(Array(".\r\n".utf8)))
        #expect(!conversation.isInsideData)
        #expect(conversation.receive(Self.reply(250, "2.0.0 queued")) == .finish([.accepted("250 2.0.0 queued")]))
    }

    @Test func aFailureAfterTheEndIsInDoubtAndBeforeItIsNot() {
        let configuration = RelayConfiguration(host: "relay.example.test", port: 25, tls: .none)
        let message = RelayMessage(sender: "", recipients: ["b@example.test", "c@example.test"], bytes: [])
        var conversation = RelayConversation(configuration: configuration, message: message, textSize: 0)
        _ = conversation.receive(Self.reply(220, "relay"))
        #expect(Self.sent(conversation.receive(Self.reply(250, "relay"))) == "MAIL FROM:<>\r\n")
        _ = conversation.receive(Self.reply(250, "ok"))
        _ = conversation.receive(Self.reply(550, "5.1.1 no such user"))
        _ = conversation.receive(Self.reply(250, "ok"))
        _ = conversation.receive(Self.reply(354, "go on"))
        var before = conversation
        #expect(before.failed("It broke.") == [.refused("550 5.1.1 no such user (in reply to RCPT TO)"), .deferred("It broke.")])
        _ = conversation.decided(true)
        #expect(conversation.failed("It broke.") == [
            .refused("550 5.1.1 no such user (in reply to RCPT TO)"), .deferred("lost after the end of data: It broke."),
        ])
    }

    @Test func withPipeliningTheEnvelopeGoesInOneWriteAndItsRepliesAreReadInTurn() {
        let configuration = RelayConfiguration(host: "relay.example.test", port: 25, tls: .none)
        let message = RelayMessage(sender: "a@example.test", recipients: ["b@example.test", "c@example.test"], bytes: [])
        var conversation = RelayConversation(configuration: configuration, message: message, textSize: 0)
        _ = conversation.receive(Self.reply(220, "relay"))
        #expect(Self.sent(conversation.receive(Self.reply(250, "relay", "PIPELINING"))) ==
            "MAIL FROM:<a@example.test>\r\nRCPT TO:<b@example.test>\r\nRCPT TO:<c@example.test>\r\nDATA\r\n")
        #expect(conversation.receive(Self.reply(250, "ok")) == .await)
        #expect(conversation.receive(Self.reply(550, "5.1.1 no")) == .await)
        #expect(conversation.receive(Self.reply(250, "ok")) == .await)
        #expect(conversation.receive(Self.reply(354, "go on")) == .sendText)
        _ = conversation.decided(true)
        #expect(conversation.session == nil)
        #expect(conversation.receive(Self.reply(250, "2.0.0 queued")) == .finish([
            .refused("550 5.1.1 no (in reply to RCPT TO)"), .accepted("250 2.0.0 queued"),
        ]))
        // A finished DATA leaves the connection fit for the next message, no RSET needed.
        guard let session = conversation.session else {
            Issue.record("the connection is not offered for reuse")
            return
        }
        #expect(!session.needsReset && session.extensions.pipelining)
        var next = RelayConversation(configuration: configuration, message: message, textSize: 0, session: session)
        #expect(Self.sent(next.begin())?.hasPrefix("MAIL FROM:<a@example.test>\r\nRCPT TO:") == true)
        // Trouble before the relay answered anything on a reused connection is no try at all.
        #expect(next.isUnanswered)
        #expect(next.receive(Self.reply(250, "ok")) == .await)
        #expect(!next.isUnanswered)
    }

    @Test func aPipelinedMailFromRefusedIsEveryonesOutcomeAndRSETComesNext() {
        let configuration = RelayConfiguration(host: "relay.example.test", port: 25, tls: .none)
        let message = RelayMessage(sender: "a@example.test", recipients: ["b@example.test"], bytes: Array("x\n".utf8))
        var conversation = RelayConversation(configuration: configuration, message: message, textSize: 3)
        _ = conversation.receive(Self.reply(220, "relay"))
        _ = conversation.receive(Self.reply(250, "relay", "PIPELINING"))
        #expect(conversation.receive(Self.reply(451, "4.3.0 not now")) == .await)
        #expect(conversation.receive(Self.reply(503, "5.5.1 need MAIL")) == .await)
        // A relay that says 354 anyway gets only the end of an empty text.
        #expect(conversation.receive(Self.reply(354, "go on")) == .send(Array(".\r\n".utf8)))
        #expect(conversation.receive(Self.reply(554, "5.5.1 no valid recipients")) ==
            .finish([.deferred("451 4.3.0 not now (in reply to MAIL FROM)")]))
        #expect(conversation.session?.needsReset == true)
        var next = RelayConversation(configuration: configuration, message: message, textSize: 3, session: conversation.session)
        #expect(Self.sent(next.begin()) == "RSET\r\n")
        #expect(Self.sent(next.receive(Self.reply(250, "ok")))?.hasPrefix("MAIL FROM:") == true)
    }

    @Test func aGoodbyeOrABrokenConnectionLeavesNothingToReuse() {
        let configuration = RelayConfiguration(host: "relay.example.test", port: 25, tls: .none)
        let message = RelayMessage(sender: "a@example.test", recipients: ["b@example.test"], bytes: [])
        var closing = RelayConversation(configuration: configuration, message: message, textSize: 0)
        _ = closing.receive(Self.reply(220, "relay"))
        _ = closing.receive(Self.reply(250, "relay"))
        _ = closing.receive(Self.reply(421, "4.3.2 closing"))
        #expect(closing.session == nil)
        var broken = RelayConversation(configuration: configuration, message: message, textSize: 0)
        _ = broken.receive(Self.reply(220, "relay"))
        _ = broken.receive(Self.reply(250, "relay"))
        _ = broken.failed("It broke.")
        #expect(broken.session == nil)
    }
}
