import Glibc
import MailroomNet
import MailroomStore
import Testing

/// What Mailroom writes out (response heads, log lines, imported mail) carries nothing a
/// hostile input put there to forge a field, a line or a file.
@Suite struct HostileOutputTests {
    typealias Folder = ImportExportTests.Folder

    /// A sign-in whose `next` smuggles a CRLF, or a tab a browser removes to leave `//host`:
    /// the raw head has one Set-Cookie (the session's) and a Location on this site.
    @Test(arguments: ["/x%0d%0aSet-Cookie:%20injected=1", "/%09/evil.example/x", "/x%0aLocation:%20//evil.example"])
    func signingInWithAHostileNextSetsOneCookieAndStaysOnTheSite(next: String) throws {
        let folder = Folder()
        let database = ScratchDatabase("signin-next")
        let password = try folder.write("password", "door-key\n")
        let server = try RunningMailroom(database: database.path, extra: ["--password-file", password])
        defer { _ = try? server.stop() }

        let host = "127.0.0.1:\(server.port)"
        let page = try HTTPClient(port: server.port).send("GET", "/signin", headers: [("Connection", "close")])
        let token = try #require(ListHTML.formToken(in: page.text))
        let body = Array("csrf=\(token)&password=door-key&next=\(next)".utf8)
        let raw = HTTPClient(port: server.port)
        try raw.write(Array("""
            POST /signin HTTP/1.1\r
            Host: \(host)\r
            Origin: http://\(host)\r
            Content-Type: application/x-www-form-urlencoded\r
            Content-Length: \(body.count)\r
            Connection: close\r
            \r\n
            """.utf8) + body)
        let bytes = try raw.readUntilClosed()
        let headEnd = try #require(bytes.firstRange(of: Array("\r\n\r\n".utf8)))
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)

        #expect(lines.first == "HTTP/1.1 303 See Other", "\(head)")
        // A lone CR or LF inside the head would be a line of its own to some reader.
        #expect(lines.allSatisfy { !$0.contains("\r") && !$0.contains("\n") && !$0.contains("\t") }, "\(head)")
        let cookies = lines.filter { $0.lowercased().hasPrefix("set-cookie:") }
        #expect(cookies.count == 1, "\(head)")
        #expect(cookies.first?.contains("mailroom_session=") == true, "\(head)")
        #expect(!head.contains("injected"))
        let locations = lines.filter { $0.lowercased().hasPrefix("location:") }
        #expect(locations == ["Location: /mailboxes/inbox"], "\(head)")
    }

    /// A Maildir holding one real message, a link in `new` to a file outside it, and a link in
    /// `cur` to a folder; the path of the file outside.
    private func maildirWithLinks(in folder: Folder) throws -> (maildir: String, outside: String, links: [String]) {
        let maildir = folder.path + "/Maildir"
        for sub in ["", "/cur", "/new", "/tmp"] { mkdir(maildir + sub, 0o755) }
        try folder.write("Maildir/new/1700000001.M1P1.host", "Subject: Real one\n\nA message.\n")
        let outside = try folder.write("outside", "Subject: Not yours\n\nroot:x:0:0:Secret-4712:/root:/bin/bash\n")
        let links = [maildir + "/new/1700000002.M2P1.host", maildir + "/cur/1700000003.M3P1.host:2,S"]
        guard symlink(outside, links[0]) == 0, symlink("/etc", links[1]) == 0 else { throw TestFailure("symlink failed") }
        return (maildir, outside, links)
    }

    private func mailroom(_ arguments: [String]) throws -> ChildProcess {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: arguments)
        _ = try program.waitForExit(within: 60)
        return program
    }

    @Test func aMaildirImportPassesOverLinksAndSaysSo() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-links")
        let (maildir, _, links) = try maildirWithLinks(in: folder)
        let run = try mailroom(["import", "--db", database.path, "--mailbox", "Archive", maildir])
        #expect(run.outputText.contains("1 messages read: 1 added to Archive, 0 there already, 2 files skipped as not messages"),
                "\(run.outputText) \(run.errorText)")
        for link in links { #expect(run.errorText.contains("import: skipped \(link): a symbolic link"), "\(run.errorText)") }

        let store = try Store(path: database.path)
        defer { store.close() }
        let messages = try store.library()[.archive]?.messages ?? []
        #expect(messages.map(\.subject) == ["Real one"])
        #expect(!messages.contains { $0.body.contains("Secret-4712") })
    }

    /// `cur` itself a link to a folder elsewhere: none of that folder's files become messages.
    @Test func aMaildirWhoseCurIsALinkIsNotFollowed() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-linked-cur")
        let maildir = folder.path + "/Maildir"
        for sub in ["", "/new", "/tmp"] { mkdir(maildir + sub, 0o755) }
        mkdir(folder.path + "/elsewhere", 0o755)
        try folder.write("Maildir/new/1700000001.M1P1.host", "Subject: Real one\n\nA message.\n")
        try folder.write("elsewhere/1700000002.M2P1.host:2,S", "Subject: Not yours\n\nSecret-4712\n")
        guard symlink(folder.path + "/elsewhere", maildir + "/cur") == 0 else { throw TestFailure("symlink failed") }
        let run = try mailroom(["import", "--db", database.path, "--mailbox", "Archive", maildir])
        #expect(run.outputText.contains("1 messages read: 1 added to Archive, 0 there already, 1 file skipped as not messages"),
                "\(run.outputText) \(run.errorText)")
        #expect(run.errorText.contains("import: skipped \(maildir)/cur: a symbolic link"), "\(run.errorText)")
        let store = try Store(path: database.path)
        defer { store.close() }
        #expect(try store.library()[.archive]?.messages.map(\.subject) == ["Real one"])
    }

    @Test func anImportThroughARunningMailroomPassesOverLinksToo() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-links-online")
        let (maildir, _, links) = try maildirWithLinks(in: folder)
        let token = try folder.write("token", "import-token-123\n")
        let password = try folder.write("password", "door-key\n")
        let server = try RunningMailroom(database: database.path, extra: ["--password-file", password, "--api-token-file", token])
        let run = try mailroom(["import", "--url", "http://127.0.0.1:\(server.port)", "--token-file", token, "--mailbox", "Archive", maildir])
        #expect(run.outputText.contains("1 messages read: 1 added to Archive, 0 there already, 2 files skipped as not messages"),
                "\(run.outputText) \(run.errorText)")
        for link in links { #expect(run.errorText.contains("import: skipped \(link): a symbolic link"), "\(run.errorText)") }
        let list = try HTTPClient(port: server.port).send(
            "GET", "/api/v1/messages?mailbox=archive", headers: [("Authorization", "Bearer import-token-123")])
        #expect(list.text.contains("\"subject\":\"Real one\""), "\(list.text)")
        #expect(!list.text.contains("Not yours") && !list.text.contains("Secret-4712"))
        #expect(try server.stop() == 0)

        let store = try Store(path: database.path)
        defer { store.close() }
        let messages = try store.library()[.archive]?.messages ?? []
        #expect(messages.map(\.subject) == ["Real one"])
    }

    /// An SMTP session whose envelope holds ESC, BEL and a bare CR (which a command line may
    /// carry: only LF ends it) leaves a log in which LF, ending each line, is the only control.
    @Test(arguments: ["text", "json"])
    func theLogCarriesNoControlCharacterAClientSent(format: String) throws {
        let database = ScratchDatabase("log-controls")
        let smtpPort = try FreePort.pick()
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: [
            "--port", "0", "--smtp-port", String(smtpPort), "--no-samples", "--db", database.path,
            "--public", PackageLocation.publicFolder, "--log-format", format,
        ])
        let banner = try program.waitForOutputLine(within: 10) { $0.contains("Mailroom listening on http://127.0.0.1:") }
        let port = try #require(RunningMailroom.port(in: banner))
        #expect(try HTTPClient(port: port).send("GET", "/mailboxes/inbox?q=%1b%5b31m%07%0d").status == 200)

        let smtp = try SMTPClient.session(port: smtpPort, ehlo: "evil\u{1b}[31m\u{7}\rhost")
        #expect(try smtp.command("MAIL FROM:<forged\u{1b}[2K\r\u{7}\u{7f}\u{9b}31m@example.test>").code == 250)
        #expect(try smtp.command("RCPT TO:<ann\u{1b}]0;title\u{7}\r@example.test>").code == 250)
        #expect(try smtp.command("DATA").code == 354)
        try smtp.send("Subject: Colours\r\n\r\n\u{1b}[31mred\u{1b}[0m\r\n.\r\n")
        #expect(try smtp.readReply().code == 250)
        #expect(try smtp.command("QUIT").code == 221)
        let sessionEnd = format == "json" ? "\"event\":\"smtp-session\"" : "SMTP session"
        _ = try program.waitForOutputLine(within: 10) { $0.contains(sessionEnd) }
        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)

        let bytes = program.standardOutput + program.standardError
        let controls = bytes.enumerated().filter { ($0.element < 0x20 && $0.element != 0x0A) || $0.element == 0x7F }
        #expect(controls.isEmpty, "control bytes \(controls.map(\.element)) in \(program.outputText)")
        #expect(!program.outputText.unicodeScalars.contains { (0x80...0x9F).contains($0.value) })
        // The sender was logged, visibly.
        let escapedSender = format == "json" ? #"forged\u001b[2K\r\u0007\u007f\u009b31m"# : #"forged\x1b[2K\r\x07\x7f\u{9b}31m"#
        #expect(program.outputText.contains(escapedSender), "\(program.outputText)")
    }

    @Test(arguments: [
        ("plain line", "plain line"),
        ("a\u{1b}[31mb", #"a\x1b[31mb"#),
        ("cr\rlf\ntab\tbell\u{7}nul\u{0}del\u{7f}", #"cr\rlf\ntab\tbell\x07nul\x00del\x7f"#),
        ("c1\u{85}\u{9b}", #"c1\u{85}\u{9b}"#),
        ("caf\u{e9} \u{a9} \u{1f4e8}", "caf\u{e9} \u{a9} \u{1f4e8}"),
    ])
    func aLogLineShowsEveryControlAsAnEscape(line: String, expected: String) {
        #expect(LogLine.visible(line) == expected)
    }

    @Test func consoleTextMayKeepItsOwnLineBreaks() {
        #expect(LogLine.visible("one\ntwo\r\u{1b}", keepingLineBreaks: true) == #"one"# + "\n" + #"two\r\x1b"#)
    }
}
