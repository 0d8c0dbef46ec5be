import Glibc
import Testing

/// `mailroom sendmail` beside a Mailroom that requires a login (--smtp-password-file), and
/// finding a Mailroom on another port the way the installed service is told where to listen.
@Suite struct SendmailLoginTests {
    /// Runs `mailroom sendmail ARGUMENTS` with one short message on standard input, with the
    /// environment cleared of the variables that would choose the server or the password for it.
    private func sendmail(_ arguments: String, environment: String = "", subject: String = "Toner low") throws -> ChildProcess {
        let binary = try MailroomExecutable.path()
        return try ChildProcess(executable: "/bin/sh", arguments: ["-c", """
            printf 'Subject: \(subject)\\n\\nTray 2.\\n' \
              | env -u MAILROOM_SMTP -u MAILROOM_ARGS -u MAILROOM_SMTP_PASSWORD MAILROOM_DEFAULTS_FILE=/nonexistent \(environment) \
                '\(binary)' sendmail \(arguments) office@example.test
            """])
    }

    private func inboxSubjects(on server: RunningMailroom) throws -> [String] {
        ListHTML.subjects(in: try HTTPClient(port: server.port).send("GET", "/mailboxes/inbox").text)
    }

    /// A Mailroom whose SMTP logins are `printer:toner-42`, offered without TLS (sendmail speaks none).
    private func lockedServer(_ database: ScratchDatabase, _ folder: ImportExportTests.Folder) throws -> (RunningMailroom, String) {
        let logins = try folder.write("logins", "printer:toner-42\n")
        let server = try RunningMailroom(database: database.path, smtp: true,
                                         extra: ["--smtp-password-file", logins, "--smtp-auth-allow-insecure"])
        return (server, "127.0.0.1:\(try #require(server.smtpPort))")
    }

    @Test func withoutALoginSendmailSaysOneIsNeededAndExitsSeventySeven() throws {
        let folder = ImportExportTests.Folder()
        let database = ScratchDatabase("sendmail-no-login")
        let (server, address) = try lockedServer(database, folder)
        defer { _ = try? server.stop() }
        let run = try sendmail("--server \(address)")
        #expect(try run.waitForExit(within: 20) == 77)
        #expect(run.errorText.contains("requires a login: give --user NAME and --password-file PATH"), "\(run.errorText)")
        #expect(try inboxSubjects(on: server) == [])
    }

    @Test func aUserAndPasswordFileLogInAndTheMailArrives() throws {
        let folder = ImportExportTests.Folder()
        let database = ScratchDatabase("sendmail-login")
        let (server, address) = try lockedServer(database, folder)
        defer { _ = try? server.stop() }
        let password = try folder.write("password", "toner-42\n")
        let run = try sendmail("--server \(address) --user printer --password-file '\(password)'")
        #expect(try run.waitForExit(within: 20) == 0, "\(run.errorText)")
        #expect(try inboxSubjects(on: server) == ["Toner low"])
    }

    @Test func thePasswordCanComeFromTheEnvironment() throws {
        let folder = ImportExportTests.Folder()
        let database = ScratchDatabase("sendmail-env-login")
        let (server, address) = try lockedServer(database, folder)
        defer { _ = try? server.stop() }
        let run = try sendmail("--server \(address) --user printer", environment: "MAILROOM_SMTP_PASSWORD=toner-42")
        #expect(try run.waitForExit(within: 20) == 0, "\(run.errorText)")
        #expect(try inboxSubjects(on: server) == ["Toner low"])
    }

    @Test func aWrongPasswordIsNamedAsSuchWithoutShowingIt() throws {
        let folder = ImportExportTests.Folder()
        let database = ScratchDatabase("sendmail-wrong")
        let (server, address) = try lockedServer(database, folder)
        defer { _ = try? server.stop() }
        let password = try folder.write("password", "guessed-wrong\n")
        let run = try sendmail("--server \(address) --user printer --password-file '\(password)'")
        #expect(try run.waitForExit(within: 20) == 77)
        #expect(run.errorText.contains("refused the login for \"printer\": the user name or password is wrong"), "\(run.errorText)")
        #expect(!run.errorText.contains("guessed-wrong"))
        // Nor its base64 in the AUTH PLAIN line (\0printer\0guessed-wrong).
        #expect(!run.errorText.contains("AHByaW50ZXIAZ3Vlc3NlZC13cm9uZw"))
        #expect(try inboxSubjects(on: server) == [])
    }

    @Test func aLoginThatNeedsSTARTTLSIsExplainedNotAttempted() throws {
        let certificate = try SelfSignedCertificate()
        let folder = ImportExportTests.Folder()
        let logins = try folder.write("logins", "printer:toner-42\n")
        let database = ScratchDatabase("sendmail-tls-only")
        let server = try RunningMailroom(database: database.path, smtp: true, extra: [
            "--smtp-tls-cert", certificate.certificate, "--smtp-tls-key", certificate.key, "--smtp-password-file", logins])
        defer { _ = try? server.stop() }
        let run = try sendmail("--server 127.0.0.1:\(try #require(server.smtpPort)) --user printer",
                               environment: "MAILROOM_SMTP_PASSWORD=toner-42")
        #expect(try run.waitForExit(within: 20) == 77)
        #expect(run.errorText.contains("offers AUTH only after STARTTLS"), "\(run.errorText)")
        #expect(run.errorText.contains("--smtp-auth-allow-insecure"))
        #expect(!run.errorText.contains("toner-42"))
    }

    @Test func withoutServerOrMAILROOM_SMTPTheDefaultsFileGivesThePort() throws {
        let folder = ImportExportTests.Folder()
        let database = ScratchDatabase("sendmail-defaults")
        let server = try RunningMailroom(database: database.path, smtp: true)
        defer { _ = try? server.stop() }
        let port = try #require(server.smtpPort)
        let defaults = try folder.write("mailroom", """
            # Settings for the mailroom service.
            MAILROOM_ARGS="--host 0.0.0.0 --smtp-port \(port)"
            MAILROOM_PASSWORD=
            """)
        let run = try sendmail("", environment: "MAILROOM_DEFAULTS_FILE='\(defaults)'", subject: "From the defaults file")
        #expect(try run.waitForExit(within: 20) == 0, "\(run.errorText)")
        #expect(try inboxSubjects(on: server) == ["From the defaults file"])

        // MAILROOM_ARGS in the environment comes before the file, and MAILROOM_SMTP before both.
        let fromEnvironment = try sendmail("", environment: "MAILROOM_ARGS='--smtp-host 0.0.0.0 --smtp-port \(port)'",
                                           subject: "From MAILROOM_ARGS")
        #expect(try fromEnvironment.waitForExit(within: 20) == 0, "\(fromEnvironment.errorText)")
        let wrongFile = try folder.write("wrong", "MAILROOM_ARGS='--smtp-port 1'\n")
        let fromSMTP = try sendmail("", environment: "MAILROOM_SMTP=127.0.0.1:\(port) MAILROOM_DEFAULTS_FILE='\(wrongFile)'",
                                    subject: "From MAILROOM_SMTP")
        #expect(try fromSMTP.waitForExit(within: 20) == 0, "\(fromSMTP.errorText)")
        #expect(try inboxSubjects(on: server) == ["From MAILROOM_SMTP", "From MAILROOM_ARGS", "From the defaults file"])
    }
}
