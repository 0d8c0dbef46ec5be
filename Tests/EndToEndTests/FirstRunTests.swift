import Glibc
import MailroomStore
import Testing

/// What a new database holds: the welcome by default, naming where this Mailroom really takes
/// mail; the six demo messages with --samples; nothing with --no-samples.
@Suite struct FirstRunTests {
    private func inboxSubjects(on server: RunningMailroom) throws -> [String] {
        ListHTML.subjects(in: try HTTPClient(port: server.port).send("GET", "/mailboxes/inbox").text)
    }

    @Test func aNewDatabaseShowsOnlyTheWelcomeNamingTheRealSMTPPort() throws {
        let database = ScratchDatabase("first-run")
        // A free port, so never the default 2525: the welcome must name the one really in use.
        let server = try RunningMailroom(database: database.path, smtp: true, firstContent: .welcome)
        defer { _ = try? server.stop() }
        let port = try #require(server.smtpPort)
        #expect(try inboxSubjects(on: server) == ["Welcome to Mailroom: send mail to 127.0.0.1:\(port)"])

        let body = try HTTPClient(port: server.port).send("GET", "/messages/1").text
        #expect(body.contains("<strong class=\"author\">Mailroom</strong>"))
        #expect(body.contains("swaks --server 127.0.0.1:\(port) --to you@example.test"))
        #expect(body.contains("mailroom sendmail --server 127.0.0.1:\(port) you@example.test"))
        #expect(body.contains("smtplib.SMTP(\"127.0.0.1\", \(port))"))
        #expect(body.contains("is:unread"))
        #expect(!body.contains("2525"))
    }

    @Test func theWelcomeSaysWhenSendingNeedsALogin() throws {
        let database = ScratchDatabase("first-run-login")
        let folder = ImportExportTests.Folder()
        let logins = try folder.write("logins", "printer:secret\n")
        let server = try RunningMailroom(database: database.path, smtp: true, firstContent: .welcome,
                                         extra: ["--smtp-password-file", logins, "--smtp-auth-allow-insecure"])
        defer { _ = try? server.stop() }
        let body = try HTTPClient(port: server.port).send("GET", "/messages/1").text
        #expect(body.contains("--auth-user NAME --auth-password PASSWORD"))
        #expect(body.contains("mailroom sendmail --server 127.0.0.1:\(try #require(server.smtpPort)) --user NAME --password-file FILE"))
        #expect(body.contains("Sending needs a login"))
        #expect(!body.contains("secret"))
    }

    @Test func withSMTPOffTheWelcomeSaysSoAndHowToTurnItOn() throws {
        let database = ScratchDatabase("first-run-smtp-off")
        let server = try RunningMailroom(database: database.path, firstContent: .welcome)
        defer { _ = try? server.stop() }
        #expect(try inboxSubjects(on: server) == ["Welcome to Mailroom: taking mail over SMTP is off"])
        let body = try HTTPClient(port: server.port).send("GET", "/messages/1").text
        #expect(body.contains("start it with --smtp-port 2525"))
    }

    @Test func aDeletedWelcomeDoesNotComeBackOnRestart() throws {
        let database = ScratchDatabase("first-run-delete")
        let first = try RunningMailroom(database: database.path, smtp: true, firstContent: .welcome)
        let tab = first.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1])
        #expect(try inboxSubjects(on: first) == [])
        #expect(try first.stop() == 0)

        let second = try RunningMailroom(database: database.path, smtp: true, firstContent: .welcome)
        #expect(try inboxSubjects(on: second) == [])
        #expect(try second.stop() == 0)
        let store = try Store(path: database.path)
        defer { store.close() }
        // The one welcome, in the Trash where it was put; no second one.
        #expect(try store.library().messageCount == 1)
    }

    @Test func samplesGiveTheSixDemoMessages() throws {
        let database = ScratchDatabase("first-run-samples")
        let server = try RunningMailroom(database: database.path, firstContent: .samples)
        defer { _ = try? server.stop() }
        let subjects = try inboxSubjects(on: server)
        #expect(subjects.count == 6)
        #expect(subjects.contains("Lunch on Friday?"))
    }

    @Test func noSamplesStartsEmpty() throws {
        let database = ScratchDatabase("first-run-empty")
        let server = try RunningMailroom(database: database.path, smtp: true, firstContent: .empty)
        defer { _ = try? server.stop() }
        #expect(try inboxSubjects(on: server) == [])
    }
}
