import Glibc
import Testing

/// Guessing a password over SMTP is slow and seen: three wrong logins end a session, an address
/// that guessed wrong waits longer after each wrong guess before its next is even checked, and
/// every failure is a warning naming the address.
@Suite struct GuessingTests {
    @Test func pipelinedSMTPLoginGuessesAreCutShortAndSlowedAcrossSessions() throws {
        let passwords = "/tmp/mailroom-guessing-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).passwords"
        let file = fopen(passwords, "w")
        fputs("scanner:s3cret\n", file)
        fclose(file)
        defer { unlink(passwords) }
        let server = try SMTPTestServer(
            "smtp-guessing", extra: ["--smtp-password-file", passwords, "--smtp-auth-allow-insecure"])
        // "\0scanner\0wrong" and "\0scanner\0s3cret".
        let wrong = "AUTH PLAIN AHNjYW5uZXIAd3Jvbmc="
        let right = "AUTH PLAIN AHNjYW5uZXIAczNjcmV0"

        // 300 guesses in one write: the first is checked, the second waits, the third ends it.
        let client = try server.session()
        try client.send(String(repeating: wrong + "\r\n", count: 300))
        let said = String(decoding: try client.readUntilClosed(), as: UTF8.self)
        let codes = said.split(separator: "\r\n").map { $0.prefix(3) }
        #expect(codes == ["535", "454", "421"], "\(said)")

        // New sessions, one guess each, as fast as they come: the address must wait 2, 4, 8 …
        // seconds between checked guesses, so in 4 seconds at most 3 are checked.
        var checked = 0
        var waited = 0
        var seen: [Int] = []
        let start = Loopback.now()
        while Loopback.now() - start < 4 {
            let guess = try server.session()
            let reply = try guess.command(wrong)
            if reply.code == 535 { checked += 1 } else if reply.code == 454 { waited += 1 }
            seen.append(reply.code)
            guess.close()
        }
        #expect(checked <= 3 && waited > checked, "checked \(checked), told to wait \(waited): \(Set(seen))")

        // Even the right password is not checked while the address waits.
        let patient = try server.session()
        #expect(try patient.command(right).code == 454)

        // Another address is not held up, and its right login works at once.
        let other = try SMTPClient.session(port: server.smtpPort, source: "127.0.0.2")
        #expect(try other.command(right).code == 235)

        let log = try server.mailroom.program.output(after: 0.2) + server.mailroom.program.errorText
        #expect(log.contains("warning: SMTP AUTH: wrong password for \"scanner\" from 127.0.0.1 (1 in a row)"), "\(log.prefix(2000))")
        #expect(log.contains("warning: SMTP AUTH: 127.0.0.1 must wait"), "\(log.prefix(2000))")
        #expect(try server.stop() == 0)
    }
}

/// The log says how an SMTP session went: a failed login is not "0 stored, 0 refused, QUIT" but
/// names its 535 (and the 530 for mail sent without a login), and a stored message's line has
/// its time.
@Suite struct SessionLogTests {
    @Test func aSessionLineNamesItsRefusalsAndAStoredLineHasItsTime() throws {
        let folder = ImportExportTests.Folder()
        let passwords = try folder.write("passwords", "scanner:s3cret\n")
        let database = ScratchDatabase("session-log")
        let smtpPort = try FreePort.pick()
        let program = try ChildProcess(
            executable: try MailroomExecutable.path(),
            arguments: ["--port", "0", "--smtp-port", String(smtpPort), "--no-samples", "--db", database.path,
                        "--public", PackageLocation.publicFolder, "--smtp-password-file", passwords, "--smtp-auth-allow-insecure"])
        _ = try program.waitForOutputLine(within: 10) { $0.hasPrefix("Mailroom listening on") }

        let failing = try SMTPClient.session(port: smtpPort)
        #expect(try failing.command("AUTH PLAIN AHNjYW5uZXIAd3Jvbmc=").code == 535)
        #expect(try failing.command("MAIL FROM:<a@example.test>").code == 530)
        #expect(try failing.command("QUIT").code == 221)
        let ended = try program.waitForOutputLine(within: 10) { $0.contains("SMTP session") }
        #expect(ended.hasSuffix("0 stored, 0 refused, QUIT; refusals: 530 ×1, 535 ×1"), "\(ended)")

        let sending = try SMTPClient.session(port: smtpPort, source: "127.0.0.2")
        #expect(try sending.command("AUTH PLAIN AHNjYW5uZXIAczNjcmV0").code == 235)
        #expect(try sending.sendMessage("Subject: Logged\r\n\r\nIn.\r\n").code == 250)
        let stored = try program.waitForOutputLine(within: 10) { $0.contains(" bytes stored as ") }
        // 2026-12-02T17:14:38Z 127.0.0.2 SMTP <sender@example.test> ...
        let stamp = stored.prefix(20)
        #expect(stamp.count == 20 && stamp.hasSuffix("Z") && stamp.dropFirst(10).first == "T", "\(stored)")
        #expect(stored.dropFirst(21).hasPrefix("127.0.0.2 SMTP <"), "\(stored)")
        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)
    }
}
