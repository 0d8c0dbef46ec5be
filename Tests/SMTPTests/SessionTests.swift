import Synchronization
@testable import SMTP
import Testing

/// RFC 5321 as a session sees it: the order of commands, the replies, and the message text.
@Suite struct SessionTests {
    @Test func theGreetingNamesTheServer() {
        let session = Session(options: SessionOptions(hostname: "mx.test"))
        #expect(session.greeting.description == "220 mx.test Mailroom ESMTP ready\r\n")
    }

    @Test func ehloAnnouncesTheExtensionsOnSeparateLines() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxMessageBytes: 1_000)))
        let reply = talk.send("EHLO client.test\r\n")
        #expect(reply.count == 1)
        #expect(reply[0].description == """
            250-mx.test greets client.test\r
            250-PIPELINING\r
            250-SIZE 1000\r
            250-8BITMIME\r
            250-SMTPUTF8\r
            250-ENHANCEDSTATUSCODES\r
            250 HELP\r

            """)
    }

    @Test func aWholeMessageIsHandedOverWithItsEnvelopeAndAnsweredOnceStored() throws {
        var talk = Conversation()
        talk.open()
        let replies = talk.send("DATA\r\nSubject: Scan\r\n\r\nPage one\r\n.\r\nQUIT\r\n")
        #expect(replies.codes == [354, 250, 221])
        #expect(replies[1].description == "250 2.0.0 Stored as message 1\r\n")
        let message = try #require(talk.messages.first)
        #expect(message.text == Array("Subject: Scan\r\n\r\nPage one\r\n".utf8))
        #expect(message.envelope == Envelope(
            client: "client.test", sender: "scanner@office.test", recipients: ["inbox@mailroom.test"],
            eightBit: false, utf8: false, user: nil))
        #expect(talk.closed)
    }

    @Test func commandsPipelinedAfterDataAreAnsweredOnlyAfterTheMessageIsStored() {
        var session = Session(options: SessionOptions(hostname: "mx.test"))
        session.receive(Array("EHLO a\r\nMAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\nhi\r\n.\r\nNOOP\r\n".utf8))
        for code in [250, 250, 250, 354] {
            guard case .reply(let reply) = session.next() else { Issue.record("expected a reply"); return }
            #expect(reply.code == code)
        }
        guard case .deliver = session.next() else { Issue.record("expected the message"); return }
        #expect(session.next() == .needMore, "nothing is read while the message is being stored")
        #expect(session.delivered(as: "7").code == 250)
        #expect(session.next() == .reply(Reply(250, "2.0.0", "OK")))
    }

    @Test func aMessageThatCouldNotBeStoredIsATemporaryFailureAndTheSessionGoesOn() {
        var session = Session(options: SessionOptions(hostname: "mx.test"))
        session.receive(Array("HELO a\r\nMAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\nhi\r\n.\r\nRSET\r\n".utf8))
        for _ in 0..<4 { _ = session.next() }
        guard case .deliver = session.next() else { Issue.record("expected the message"); return }
        #expect(session.notDelivered().code == 451)
        #expect(session.next() == .reply(Reply(250, "2.0.0", "OK")))
    }

    @Test func dotStuffingIsUndoneAndBareLineFeedsAreKept() {
        var talk = Conversation()
        talk.open()
        talk.send("DATA\r\n..leading dot\r\n\r\n...\r\nunix line\nend\r\n.\r\n")
        #expect(talk.messages.first?.text == Array(".leading dot\r\n\r\n..\r\nunix line\nend\r\n".utf8))
    }

    @Test func anEmptyMessageEndsAtOnce() {
        var talk = Conversation()
        talk.open()
        #expect(talk.send("DATA\r\n.\r\n").codes == [354, 250])
        #expect(talk.messages.first?.text == [])
    }

    /// SMTP smuggling: only <CRLF>.<CRLF> ends the text. Every other way of writing a dot on a
    /// line of its own is text, so the "second message" stays inside the first. (After a CRLF,
    /// a dot followed by anything but CRLF is a stuffed dot, and goes, as RFC 5321 4.5.2 says.)
    @Test(arguments: [
        ("\n.\n", "\n.\n"), ("\n.\r\n", "\n.\r\n"), ("\r.\r", "\r.\r"), ("\r\n.\n", "\r\n\n"),
        ("\r.\r\n", "\r.\r\n"), ("\n.\r", "\n.\r"), ("\r\n.\r", "\r\n\r"),
    ])
    func onlyCRLFDotCRLFEndsTheText(_ fakeEnd: String, _ kept: String) {
        var talk = Conversation()
        talk.open()
        let smuggled = "MAIL FROM:<ceo@bank.test>\r\nRCPT TO:<victim@mailroom.test>\r\nDATA\r\nForged\r\n"
        let replies = talk.send("DATA\r\nreal\(fakeEnd)\(smuggled).\r\n")
        #expect(replies.codes == [354, 250], "the hidden commands were run")
        #expect(talk.messages.count == 1)
        #expect(talk.messages.first?.text == Array("real\(kept)\(smuggled)".utf8))
    }

    @Test func aMessageArrivingOneByteAtATimeIsTheSameMessage() {
        let text = "DATA\r\nSubject: x\r\n\r\n..a\r\nb\n.\nc\r\r\n.\r\n"
        var whole = Conversation()
        whole.open()
        whole.send(text)
        var pieces = Conversation()
        pieces.open()
        pieces.send(Array(text.utf8), inPiecesOf: 1)
        #expect(pieces.messages == whole.messages)
        #expect(pieces.replies == whole.replies)
        #expect(whole.messages.count == 1)
    }

    @Test func commandsInTheWrongOrderAreRefusedAndTheSessionGoesOn() {
        var talk = Conversation()
        #expect(talk.send("MAIL FROM:<a@b>\r\n").codes == [503])
        #expect(talk.send("RCPT TO:<a@b>\r\n").codes == [503])
        #expect(talk.send("DATA\r\n").codes == [503])
        #expect(talk.send("EHLO c\r\nDATA\r\n").codes == [250, 503])
        #expect(talk.send("MAIL FROM:<a@b>\r\nDATA\r\n").codes == [250, 554])
        #expect(talk.send("MAIL FROM:<a@b>\r\n").codes == [503], "a second MAIL inside a message")
        #expect(talk.send("RSET\r\nMAIL FROM:<>\r\nRCPT TO:<postmaster>\r\nDATA\r\n.\r\n").codes == [250, 250, 250, 354, 250])
        #expect(talk.messages.first?.envelope.sender == "")
    }

    @Test func everyOtherCommandHasItsAnswer() {
        var talk = Conversation()
        #expect(talk.send("NOOP\r\n").first?.code == 250)
        #expect(talk.send("VRFY someone\r\n").first?.description == "252 2.5.0 Cannot verify a user, but will take mail for any.\r\n")
        #expect(talk.send("HELP\r\n").first?.code == 214)
        #expect(talk.send("EXPN staff\r\n").first?.code == 500)
        #expect(talk.send("STARTTLS\r\n").first?.code == 502, "no certificate, no STARTTLS")
        #expect(talk.send("AUTH PLAIN\r\n").first?.code == 502, "no passwords, no AUTH")
        #expect(talk.send("helo lowercase.test\r\n").first?.code == 250)
        #expect(talk.send("QUIT\r\n").first?.code == 221)
        #expect(talk.closed)
    }

    @Test func anOverLongCommandLineIsRefusedEvenWhenItArrivesInPiecesAndTheNextOneCounts() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxCommandLineBytes: 64)))
        let long = "NOOP " + String(repeating: "x", count: 500) + "\r\nNOOP\r\n"
        let replies = talk.send(Array(long.utf8), inPiecesOf: 7)
        #expect(replies.map(\.description) == [
            "500 5.5.6 The line is longer than 64 bytes.\r\n", "250 2.0.0 OK\r\n",
        ])
        // 62 bytes and a CRLF is 64: just allowed.
        #expect(talk.send("NOOP " + String(repeating: "y", count: 57) + "\r\n").codes == [250])
        #expect(talk.send("NOOP " + String(repeating: "y", count: 58) + "\r\n").codes == [500])
    }

    @Test func aDeclaredSizeOverTheLimitIsRefusedAtMail() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxMessageBytes: 100)))
        #expect(talk.send("EHLO a\r\nMAIL FROM:<a@b> SIZE=101\r\nMAIL FROM:<a@b> SIZE=100\r\n").codes == [250, 552, 250])
    }

    @Test func aMessageOverTheSizeIsReadToItsEndRefusedAndTheSessionGoesOn() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxMessageBytes: 100)))
        talk.open()
        let big = String(repeating: String(repeating: "z", count: 50) + "\r\n", count: 10)
        let replies = talk.send("DATA\r\n\(big).\r\nMAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\nsmall\r\n.\r\n")
        #expect(replies.codes == [354, 552, 250, 250, 354, 250])
        #expect(talk.messages.map(\.text) == [Array("small\r\n".utf8)])
    }

    /// Text is read a line's run at a time: the limits hold to the byte however the bytes come.
    @Test(arguments: [1, 3, 7, 64])
    func limitsHoldToTheByteInAnyPieces(piece: Int) {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxTextLineBytes: 21, maxMessageBytes: 100)))
        // 100 bytes of text exactly: 4 lines of 18 characters and CRLF, then a stuffed one like them.
        let line = String(repeating: "c", count: 18) + "\r\n"
        let fits = String(repeating: line, count: 4) + "." + line
        talk.open()
        #expect(talk.send(Array("DATA\r\n\(fits).\r\n".utf8), inPiecesOf: piece).codes == [354, 250])
        #expect(talk.messages.last?.text == Array(String(repeating: line, count: 5).utf8))
        talk.open()
        // One byte more: the last line of 19 characters fits the line limit (21 with its CRLF).
        let over = String(repeating: line, count: 4) + "." + String(repeating: "c", count: 19) + "\r\n"
        #expect(talk.send(Array("DATA\r\n\(over).\r\n".utf8), inPiecesOf: piece).codes == [354, 552])
        talk.open()
        let long = String(repeating: "d", count: 20)
        #expect(talk.send(Array("DATA\r\n\(long)\r\n.\r\n".utf8), inPiecesOf: piece).codes == [354, 500])
        talk.open()
        #expect(talk.send(Array("DATA\r\nok\r\n.\r\n".utf8), inPiecesOf: piece).codes == [354, 250])
    }

    @Test func aTextLineOverTheLimitIsRefusedOnceTheMessageHasEnded() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", limits: SMTPLimits(maxTextLineBytes: 1_000)))
        talk.open()
        let fits = String(repeating: "a", count: 998)
        #expect(talk.send("DATA\r\n\(fits)\r\n.\r\n").codes == [354, 250])
        talk.open()
        #expect(talk.send("DATA\r\n\(fits)a\r\n.\r\n").codes == [354, 500])
        // Lines that end in a bare LF are lines too: many short ones are no long one.
        talk.open()
        let unix = String(repeating: String(repeating: "b", count: 900) + "\n", count: 5)
        #expect(talk.send("DATA\r\n\(unix)\r\n.\r\n").codes == [354, 250])
        #expect(talk.messages.count == 2)
    }

    @Test func tenThousandRecipientsGetOneHundredAcceptedAndTheRestRefused() {
        var talk = Conversation()
        talk.send("EHLO a\r\nMAIL FROM:<a@b>\r\n")
        let many = (0..<10_000).map { "RCPT TO:<user\($0)@c>\r\n" }.joined()
        let replies = talk.send(many + "DATA\r\nx\r\n.\r\n")
        #expect(replies.filter { $0.code == 250 && $0.status == "2.1.5" }.count == 100)
        #expect(replies.filter { $0.code == 452 }.count == 9_900)
        #expect(talk.messages.first?.envelope.recipients.count == 100)
    }

    @Test func startTLSForgetsWhatWasSentBeforeTheHandshakeAndStartsTheSessionAgain() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", canStartTLS: true))
        #expect(talk.send("EHLO a\r\n").first?.lines.contains("STARTTLS") == true)
        let replies = talk.send("STARTTLS\r\nMAIL FROM:<injected@evil>\r\n")
        #expect(replies.map(\.description) == ["220 2.0.0 Ready to start TLS\r\n"])
        #expect(talk.startedTLS)
        #expect(talk.session.isTLS)
        #expect(talk.send("MAIL FROM:<a@b>\r\n").codes == [503], "EHLO is needed again after TLS starts")
        #expect(talk.send("EHLO a\r\n").first?.lines.contains("STARTTLS") == false)
        #expect(talk.send("STARTTLS\r\n").codes == [502])
    }

    // MARK: Logging in

    private static let passwords = SessionOptions.Authentication.passwords(
        check: { user, password in user == "scanner" && password == "s3cret" }, overPlainText: false)

    @Test func withPasswordsAuthIsOfferedOnlyOverTLSAndRequiredBeforeMail() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", canStartTLS: true, authentication: Self.passwords))
        #expect(talk.send("EHLO a\r\n").first?.lines.contains("AUTH PLAIN LOGIN") == false)
        #expect(talk.send("AUTH PLAIN\r\n").codes == [502])
        #expect(talk.send("MAIL FROM:<a@b>\r\n").codes == [530])
        talk.send("STARTTLS\r\n")
        #expect(talk.send("EHLO a\r\n").first?.lines.contains("AUTH PLAIN LOGIN") == true)
        // "\0scanner\0wrong", then "\0scanner\0s3cret".
        #expect(talk.send("AUTH PLAIN AHNjYW5uZXIAd3Jvbmc=\r\n").codes == [535])
        #expect(talk.send("MAIL FROM:<a@b>\r\n").codes == [530])
        #expect(talk.send("AUTH PLAIN AHNjYW5uZXIAczNjcmV0\r\n").codes == [235])
        #expect(talk.send("MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\nx\r\n.\r\n").codes == [250, 250, 354, 250])
        #expect(talk.messages.first?.envelope.user == "scanner")
        #expect(talk.send("AUTH PLAIN AHNjYW5uZXIAczNjcmV0\r\n").codes == [503], "already logged in")
    }

    @Test func authLoginAsksForTheUserThenThePassword() {
        let options = SessionOptions(hostname: "mx.test", authentication: .passwords(
            check: { $0 == "scanner" && $1 == "s3cret" }, overPlainText: true))
        var talk = Conversation(options)
        talk.send("EHLO a\r\n")
        #expect(talk.send("AUTH LOGIN\r\n").map(\.description) == ["334 VXNlcm5hbWU6\r\n"])
        #expect(talk.send("c2Nhbm5lcg==\r\n").map(\.description) == ["334 UGFzc3dvcmQ6\r\n"])
        #expect(talk.send("czNjcmV0\r\n").codes == [235])
    }

    @Test func aLoginCanBeCancelledOrGarbledAndTheSessionGoesOn() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", authentication: .acceptAny))
        talk.send("EHLO a\r\n")
        #expect(talk.send("AUTH PLAIN\r\n*\r\n").codes == [334, 501])
        #expect(talk.send("AUTH PLAIN !!!!\r\n").codes == [501])
        #expect(talk.send("AUTH CRAM-MD5\r\n").codes == [504])
        #expect(talk.send("NOOP\r\n").codes == [250])
    }

    /// Three wrong logins in one session end it with 421, however they arrive (here pipelined
    /// in one piece); nothing after them is read.
    @Test func aThirdWrongLoginClosesTheSession() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", canStartTLS: true, authentication: Self.passwords))
        talk.send("STARTTLS\r\n")
        talk.send("EHLO a\r\n")
        let wrong = "AUTH PLAIN AHNjYW5uZXIAd3Jvbmc=\r\n"
        let replies = talk.send(String(repeating: wrong, count: 300) + "AUTH PLAIN AHNjYW5uZXIAczNjcmV0\r\n")
        #expect(replies.codes == [535, 535, 421])
        #expect(talk.closed)
    }

    /// An address that must still wait after wrong logins is told 454 and its login is not
    /// even checked; another address's right login changes nothing for it.
    @Test func anAddressThatMustWaitIsNotChecked() {
        let waits = Mutex<[String: Int64]>([:])
        let checked = Mutex(0)
        let throttle = LoginThrottle(
            wait: { peer in waits.withLock { $0[peer] } },
            failed: { peer, _ in waits.withLock { $0[peer] = 2 } })
        let options = SessionOptions(hostname: "mx.test", authentication: .passwords(
            check: { user, password in
                checked.withLock { $0 += 1 }
                return user == "scanner" && password == "s3cret"
            }, overPlainText: true), throttle: throttle)
        var first = Conversation(options, peer: "192.0.2.7")
        first.send("EHLO a\r\n")
        #expect(first.send("AUTH PLAIN AHNjYW5uZXIAd3Jvbmc=\r\n").codes == [535])
        // The right password, but the address must wait: not checked.
        var second = Conversation(options, peer: "192.0.2.7")
        second.send("EHLO a\r\n")
        let waiting = second.send("AUTH PLAIN AHNjYW5uZXIAczNjcmV0\r\n")
        #expect(waiting.codes == [454] && waiting.first?.description.contains("try again in 2 s") == true)
        #expect(checked.withLock { $0 } == 1)
        // Another address is checked as usual, and its right login leaves the first one waiting.
        var other = Conversation(options, peer: "192.0.2.8")
        other.send("EHLO a\r\n")
        #expect(other.send("AUTH PLAIN AHNjYW5uZXIAczNjcmV0\r\n").codes == [235])
        #expect(waits.withLock { $0["192.0.2.7"] } == 2)
    }

    @Test func acceptAnyLetsEveryLoginInAndRequiresNone() {
        var talk = Conversation(SessionOptions(hostname: "mx.test", authentication: .acceptAny))
        #expect(talk.send("EHLO a\r\n").first?.lines.contains("AUTH PLAIN LOGIN") == true)
        #expect(talk.send("MAIL FROM:<a@b>\r\nRSET\r\n").codes == [250, 250])
        #expect(talk.send("AUTH PLAIN AHByaW50ZXIAYW55dGhpbmc=\r\n").codes == [235])
    }
}
