import Glibc
@testable import MailroomNet
import Testing

/// The relay client against a small Python SMTP server that answers as told: the bytes exactly
/// as sent, each recipient's own outcome, logins, and relays that stall, hang up, talk too much
/// or cannot take the message.
@Suite struct RelayClientPeerTests {
    static func configuration(
        _ peer: RelayPeer, tls: RelayTLS = .verify, login: RelayLogin? = nil, timeoutSeconds: Int = 10
    ) -> RelayConfiguration {
        RelayConfiguration(host: "127.0.0.1", port: peer.port, tls: tls, login: login, timeoutSeconds: timeoutSeconds)
    }

    static func message(_ text: String = "Subject: Hello\n\nHello.\n", to recipients: [String] = ["one@example.test"]) -> RelayMessage {
        RelayMessage(sender: "sender@example.test", recipients: recipients, bytes: Array(text.utf8))
    }

    @Test func theTextGoesWithCRLFLineEndsDotStuffedAndEndedByADotLine() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        let text = "Subject: Mixed\r\n\nbare LF\nCRLF\r\n.dot\n..dots\nno end"
        let outcome = try RelayOutcome.send(Self.message(text), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        let sent = String(decoding: try peer.data(), as: UTF8.self)
        #expect(sent == "Subject: Mixed\r\n\r\nbare LF\r\nCRLF\r\n..dot\r\n...dots\r\nno end\r\n.\r\n")
    }

    @Test func anEmptyMessageIsJustTheDotLine() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(""), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        #expect(try peer.data() == Array(".\r\n".utf8))
    }

    @Test func eachRecipientHasItsOwnOutcomeInTheOrderGiven() throws {
        let peer = try RelayPeer(answers: [
            "RCPT NOBODY@EXAMPLE.TEST": "550 5.1.1 No such user", "RCPT LATER@EXAMPLE.TEST": "451 4.3.0 Try later",
        ])
        let loop = try RelayTestLoop()
        let message = Self.message(to: ["one@example.test", "nobody@example.test", "later@example.test"])
        let outcome = try RelayOutcome.send(message, on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [
            .accepted("250 2.0.0 Ok: queued as PEER1"),
            .refused("550 5.1.1 No such user (in reply to RCPT TO)"),
            .deferred("451 4.3.0 Try later (in reply to RCPT TO)"),
        ])
    }

    @Test(arguments: [("AUTH PLAIN LOGIN", "PLAIN"), ("AUTH LOGIN", "LOGIN")])
    func theLoginArrivesAsGiven(announced: String, mechanism: String) throws {
        let peer = try RelayPeer(ehlo: [announced])
        let loop = try RelayTestLoop()
        let login = RelayLogin(user: "relay-user", password: "p\u{e4}ss word:1")
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .none, login: login)))
        #expect(try peer.waitFor("auth") == "\(mechanism) relay-user p\u{e4}ss word:1")
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
    }

    @Test func aLoginIsNeverSentInPlainTextUnlessTLSIsOff() throws {
        let peer = try RelayPeer(ehlo: ["AUTH PLAIN LOGIN"])
        let loop = try RelayTestLoop()
        let login = RelayLogin(user: "relay-user", password: "secret")
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .verify, login: login)))
        #expect(outcome.replies == [.deferred("The relay does not offer STARTTLS, and the login is not sent in plain text.")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("command AUTH") || $0.hasPrefix("command MAIL") }, "\(lines)")
    }

    @Test func aRefusedLoginIsDeferred() throws {
        let peer = try RelayPeer(ehlo: ["AUTH PLAIN"], answers: ["AUTH": "535 5.7.8 Authentication failed"])
        let loop = try RelayTestLoop()
        let login = RelayLogin(user: "relay-user", password: "wrong")
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .none, login: login)))
        #expect(outcome.replies == [.deferred("The relay refused the login: 535 5.7.8 Authentication failed.")])
    }

    @Test func aServerWithoutEHLOIsSpokenToWithHELO() throws {
        let peer = try RelayPeer(answers: ["EHLO": "502 5.5.2 Not here"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message("\u{e9}\n"), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        let lines = try peer.linesOfSession()
        #expect(lines.contains("command HELO mailroom"))
        // Without EHLO there is no 8BITMIME to declare.
        #expect(lines.contains("command MAIL FROM:<sender@example.test>"), "\(lines)")
    }

    @Test func aMessageOverTheAnnouncedSizeIsRefusedWithoutSendingIt() throws {
        let peer = try RelayPeer(ehlo: ["SIZE 100"])
        let loop = try RelayTestLoop()
        let text = String(repeating: "A line of text.\n", count: 20)
        let outcome = try RelayOutcome.send(Self.message(text), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.refused("The message is 340 bytes, more than the 100 the relay takes.")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("command MAIL") }, "\(lines)")
    }

    @Test func theSizeIsDeclaredWhenTheRelayAnnouncesSIZE() throws {
        let peer = try RelayPeer(ehlo: ["SIZE 10240000"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message("Hi\n"), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        #expect(try peer.waitFor("command") == "EHLO mailroom")
        #expect(try peer.linesOfSession().contains("command MAIL FROM:<sender@example.test> SIZE=4"))
    }

    @Test func aNonASCIIAddressNeedsSMTPUTF8() throws {
        let address = "jos\u{e9}@example.test"
        let refusing = try RelayPeer()
        let loop = try RelayTestLoop()
        let refused = try RelayOutcome.send(Self.message(to: [address]), on: loop.client(Self.configuration(refusing)))
        #expect(refused.replies == [.refused("An address is not ASCII, and the relay does not offer SMTPUTF8.")])

        let taking = try RelayPeer(ehlo: ["SMTPUTF8", "8BITMIME"])
        let accepted = try RelayOutcome.send(Self.message(to: [address]), on: loop.client(Self.configuration(taking)))
        #expect(accepted.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        let lines = try taking.linesOfSession()
        #expect(lines.contains("command MAIL FROM:<sender@example.test> SMTPUTF8"), "\(lines)")
        #expect(lines.contains("command RCPT TO:<\(address)>"), "\(lines)")
    }

    // MARK: The caller's word

    @Test func abandoningBeforeTheEndSendsNoDotAndDefersEveryone() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        let message = Self.message(to: ["one@example.test", "two@example.test"])
        let outcome = try RelayOutcome.send(message, on: loop.client(Self.configuration(peer)), proceed: false)
        #expect(outcome.askedBeforeEnd == 1)
        #expect(outcome.replies == [.deferred("abandoned"), .deferred("abandoned")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("data ") }, "\(lines)")
    }

    @Test func noWordFromTheCallerAbandonsOnceTheTimeIsUp() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, timeoutSeconds: 1)), proceed: nil)
        #expect(outcome.replies == [.deferred("abandoned: no word to end the data came within 1 second")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("data ") }, "\(lines)")
    }

    // MARK: Relays that misbehave

    @Test func aRelayThatStopsAnsweringIsDeferredOnceTheTimeIsUp() throws {
        let peer = try RelayPeer(answers: ["MAIL": "silence"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, timeoutSeconds: 1)))
        #expect(outcome.replies == [.deferred(
            "The relay at 127.0.0.1:\(peer.port) did not answer within 1 second (while waiting for the reply to MAIL FROM).")])
        #expect(outcome.askedBeforeEnd == 0)
    }

    @Test(arguments: ["silence", "close"])
    func silenceOrAHangUpAfterTheEndLeavesTheMessageInDoubt(answer: String) throws {
        let peer = try RelayPeer(answers: ["END": answer])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, timeoutSeconds: 1)))
        #expect(outcome.replies.count == 1)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.hasPrefix("lost after the end of data: The relay at 127.0.0.1:") },
                "\(outcome.replies)")
        _ = try peer.data()
    }

    @Test func anOverLongReplyLineIsAProtocolError() throws {
        let peer = try RelayPeer(answers: ["CONNECT": "220 " + String(repeating: "x", count: 3_000)])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.deferred("The relay sent a reply line longer than 2048 bytes.")])
    }

    /// A second reply to one command would be taken for the answer to the next one.
    @Test func aRelayThatAnswersTwiceIsCutOff() throws {
        let peer = try RelayPeer(answers: ["MAIL": "250 2.1.0 Ok\r\n250 2.1.0 Ok again"])
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer)))
        #expect(outcome.replies == [.deferred("The relay sent more than the reply to one command.")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("command RCPT") }, "\(lines)")
    }

    /// One connection carries message after message, as Postfix's own client does: commands
    /// pipelined where the relay offers it, RSET after a transaction it refused, and QUIT only
    /// once the client is told to stop.
    @Test func oneConnectionCarriesTheNextMessagesWithRSETAfterARefusal() throws {
        let peer = try RelayPeer(ehlo: ["PIPELINING"], answers: ["RCPT NOBODY@EXAMPLE.TEST": "550 5.1.1 No such user"])
        let loop = try RelayTestLoop()
        let client = loop.client(Self.configuration(peer))
        let refused = try RelayOutcome.send(Self.message(to: ["nobody@example.test"]), on: client)
        #expect(refused.replies == [.refused("550 5.1.1 No such user (in reply to RCPT TO)")])
        #expect(refused.askedBeforeEnd == 0)
        // The relay said 354 to the pipelined DATA all the same: it got the empty text's end.
        #expect(try peer.data() == Array(".\r\n".utf8))
        for _ in 0..<2 {
            let sent = try RelayOutcome.send(Self.message(), on: client)
            #expect(sent.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        }
        client.quit()
        let commands = try peer.linesOfSession().filter { $0.hasPrefix("command ") }.map { $0.dropFirst(8).prefix(4) }
        #expect(commands == ["EHLO", "MAIL", "RCPT", "DATA", "RSET", "MAIL", "RCPT", "DATA", "MAIL", "RCPT", "DATA", "QUIT"])
    }

    /// A goodbye that comes while the connection waits for work closes it; the next message
    /// goes on a new one.
    @Test func aRelayThatSaysGoodbyeBetweenMessagesGetsANewConnection() throws {
        let peer = try RelayPeer(answers: ["END": "250 2.0.0 Ok: queued as PEER1\r\n421 4.4.2 peer closing"])
        let loop = try RelayTestLoop()
        let client = loop.client(Self.configuration(peer))
        let first = try RelayOutcome.send(Self.message(), on: client)
        #expect(first.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        _ = try peer.waitFor("closed")
        let second = try RelayOutcome.send(Self.message(), on: client)
        #expect(second.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        client.quit()
        let lines = try peer.linesOfSessions(2)
        #expect(lines.filter { $0.hasPrefix("command EHLO") }.count == 2, "\(lines)")
    }
}
