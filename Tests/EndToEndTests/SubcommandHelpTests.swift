import Glibc
import Testing

/// Every subcommand answers `--help` with its own usage on standard output and exit status 0,
/// as a newcomer trying `mailroom sendmail --help` expects (it used to say "unknown option").
@Suite struct SubcommandHelpTests {
    @Test(arguments: [
        ("sendmail", ["--server HOST:PORT", "-t "]), ("backup", ["OUT"]), ("check", ["--db PATH"]),
        ("import", ["--url http://HOST:PORT", "--token-file"]), ("export", ["--mailbox NAME [OUT]"]),
    ])
    func eachSubcommandAnswersHelpWithItsOwnUsage(subcommand: String, mentions: [String]) throws {
        for flag in subcommand == "sendmail" ? ["--help"] : ["--help", "-h"] {
            let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: [subcommand, flag])
            #expect(try program.waitForExit(within: 10) == 0, "\(subcommand) \(flag): \(program.errorText)")
            #expect(program.outputText.hasPrefix("Usage: mailroom \(subcommand) "), "\(program.outputText)")
            for other in ["sendmail", "backup", "check", "import", "export"] where other != subcommand {
                #expect(!program.outputText.contains("mailroom \(other) "), "\(subcommand)'s help shows \(other)'s usage")
            }
            for mention in mentions { #expect(program.outputText.contains(mention), "\(mention) in \(program.outputText)") }
            #expect(program.errorText.isEmpty, "\(program.errorText)")
        }
    }
}

/// The start-up line tells whoever set up a device what it needs to send mail here.
@Suite struct StartupLineTests {
    @Test func theStartupLineSaysWhenSTARTTLSIsOnAndAUTHRequired() throws {
        let certificate = try SelfSignedCertificate()
        let folder = ImportExportTests.Folder()
        let passwords = try folder.write("passwords", "scanner:s3cret\n")
        let tls = ["--smtp-tls-cert", certificate.certificate, "--smtp-tls-key", certificate.key]
        for (extra, notes) in [
            ([String](), "(2 threads)"),
            (tls, "(2 threads; STARTTLS on)"),
            (tls + ["--smtp-password-file", passwords], "(2 threads; STARTTLS on; AUTH required)"),
            (["--smtp-auth-accept-any"], "(2 threads; AUTH accepted, not required)"),
        ] {
            let database = ScratchDatabase("startup-line")
            let server = try RunningMailroom(database: database.path, smtp: true, extra: ["--threads", "2"] + extra)
            let banner = try server.program.waitForOutputLine(within: 10) { $0.hasPrefix("Mailroom listening on") }
            #expect(banner.hasSuffix(" \(notes)"), "\(banner)")
            #expect(try server.stop() == 0)
        }
    }
}

/// A damaged database stops the start with the file's name and what to do, not a bare SQLite
/// error about a pragma.
@Suite struct DamagedDatabaseTests {
    @Test func aDamagedDatabaseIsNamedWithWhatToDo() throws {
        let database = ScratchDatabase("damaged")
        try database.seed(messages: 3)
        // The rest of the first page (the schema's own b-tree) overwritten, the header kept.
        guard let file = fopen(database.path, "r+b") else { throw TestFailure("cannot open \(database.path)") }
        fseek(file, 100, SEEK_SET)
        let junk = [UInt8](repeating: 0xFF, count: 3_900)
        fwrite(junk, 1, junk.count, file)
        fclose(file)
        let program = try ChildProcess(
            executable: try MailroomExecutable.path(), arguments: RunningMailroom.arguments(database: database.path))
        #expect(try program.waitForExit(within: 10) == 1)
        let said = program.errorText
        #expect(said.contains("the database \(database.path) is damaged (SQLite error 11"), "\(said)")
        #expect(said.contains("mailroom check --db \(database.path)") && said.contains("backup"), "\(said)")
        #expect(!program.outputText.contains("listening"))
    }
}
