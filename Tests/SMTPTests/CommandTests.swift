@testable import SMTP
import Testing

@Suite struct CommandTests {
    private func parse(_ line: String) -> Result<Command, Reply> {
        Command.parse(Array(line.utf8))
    }

    @Test(arguments: [
        ("EHLO client.test", Command.hello("client.test", extended: true)),
        ("helo [192.168.1.20]", .hello("[192.168.1.20]", extended: false)),
        ("MAIL FROM:<a@b.test>", .mail(from: "a@b.test", parameters: .init())),
        ("mail from:<>", .mail(from: "", parameters: .init())),
        ("MAIL FROM: <spaced@b.test>", .mail(from: "spaced@b.test", parameters: .init())),
        ("MAIL FROM:bare@b.test", .mail(from: "bare@b.test", parameters: .init())),
        ("MAIL FROM:<@relay.test:a@b.test>", .mail(from: "a@b.test", parameters: .init())),
        ("MAIL FROM:<a@b> SIZE=2048 BODY=8BITMIME SMTPUTF8", .mail(from: "a@b", parameters: .init(size: 2048, eightBit: true, utf8: true))),
        ("MAIL FROM:<a@b> body=7bit AUTH=<>", .mail(from: "a@b", parameters: .init())),
        ("RCPT TO:<c@d.test>", .recipient("c@d.test")),
        ("RCPT TO:<Postmaster>", .recipient("Postmaster")),
        ("rcpt to:<ü@例え.jp>", .recipient("ü@例え.jp")),
        ("DATA", .data), ("RSET", .reset), ("NOOP anything", .noop), ("QUIT", .quit),
        ("VRFY someone", .verify), ("HELP MAIL", .help), ("STARTTLS", .startTLS),
        ("AUTH plain", .auth(mechanism: "PLAIN", initialResponse: nil)),
        ("AUTH LOGIN dXNlcg==", .auth(mechanism: "LOGIN", initialResponse: "dXNlcg==")),
    ] as [(String, Command)])
    func commandsParse(line: String, command: Command) throws {
        #expect(try parse(line).get() == command)
    }

    @Test(arguments: [
        ("EHLO", 501), ("MAIL TO:<a@b>", 501), ("MAIL FROM:<a@b", 501), ("MAIL FROM:<a@b>x", 501),
        ("MAIL FROM:", 501), ("MAIL FROM:<a@b> SIZE=big", 501), ("MAIL FROM:<a@b> SIZE=-1", 501),
        ("MAIL FROM:<a@b> BODY=BINARYMIME", 501), ("MAIL FROM:<a@b> RET=FULL", 555),
        ("RCPT TO:<>", 501), ("RCPT FROM:<a@b>", 501), ("DATA now", 501), ("RSET x", 501),
        ("QUIT now", 501), ("VRFY", 501), ("STARTTLS x", 501), ("AUTH", 501), ("AUTH a b c", 501),
        ("EXPN list", 500), ("", 500), ("GET / HTTP/1.1", 500), ("NOOP\u{0}", 500),
    ] as [(String, Int)])
    func badCommandsSayWhy(line: String, code: Int) {
        guard case .failure(let reply) = parse(line) else {
            Issue.record("\(line) parsed")
            return
        }
        #expect(reply.code == code, "\(line): \(reply)")
        #expect(reply.lines.allSatisfy { !$0.isEmpty })
    }

    @Test func aMultiLineReplyHasAHyphenOnEveryLineButTheLast() {
        #expect(Reply(250, nil, ["a", "b", "c"]).description == "250-a\r\n250-b\r\n250 c\r\n")
        #expect(Reply(550, "5.1.1", "No.").description == "550 5.1.1 No.\r\n")
    }

    /// An EHLO name with control characters is echoed with each of them as "?": no reply line
    /// of the client's making, no terminal escape.
    @Test func aReplyLineCarriesNoControlCharacter() {
        var talk = Conversation()
        let replies = talk.send("EHLO evil\u{1b}[31m\rname\u{7f}\r\n")
        #expect(replies.first?.lines.first == "mx.test greets evil?[31m?name?")
        #expect(Reply(250, nil, "a\r\n250 b").description == "250 a??250 b\r\n")
    }

    @Test(arguments: [("", ""), ("YQ==", "a"), ("YWI=", "ab"), ("YWJj", "abc"), ("AGEAYg==", "\u{0}a\u{0}b")])
    func base64Decodes(_ encoded: String, _ decoded: String) {
        #expect(Base64.decode(Array(encoded.utf8)) == Array(decoded.utf8))
    }

    @Test(arguments: ["Y", "YQ=", "Y===", "YQ==YQ==", "a!bc", "YW=j"])
    func badBase64IsRefused(_ encoded: String) {
        #expect(Base64.decode(Array(encoded.utf8)) == nil)
    }
}
