import Foundation
import Glibc
import Testing

/// `--log-format json`: one JSON object a line, a line per request and per SMTP session, and
/// no message content in any of them.
@Suite struct LogFormatTests {
    @Test func everyLineIsAnObjectWithTimeAndLevelAndNoContent() throws {
        let database = ScratchDatabase("json-log")
        let smtpPort = try FreePort.pick()
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: [
            "--port", "0", "--smtp-port", String(smtpPort), "--no-samples", "--db", database.path,
            "--public", PackageLocation.publicFolder, "--log-format", "json",
        ])
        let banner = try program.waitForOutputLine(within: 10) { $0.contains("Mailroom listening on http://127.0.0.1:") }
        let port = try #require(RunningMailroom.port(in: banner))
        let client = HTTPClient(port: port)
        #expect(try client.send("GET", "/mailboxes/inbox").status == 200)
        let smtp = try SMTPClient.session(port: smtpPort)
        #expect(try smtp.command("MAIL FROM:<app@example.test>").code == 250)
        #expect(try smtp.command("RCPT TO:<ann@example.test>").code == 250)
        #expect(try smtp.command("DATA").code == 354)
        try smtp.send("Subject: Secret-subject-4711\r\n\r\nSecret-body-4711\r\n.\r\n")
        #expect(try smtp.readReply().code == 250)
        #expect(try smtp.command("QUIT").code == 221)
        _ = try program.waitForOutputLine(within: 10) { $0.contains("\"event\":\"smtp-session\"") }
        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)

        let lines = program.outputText.split(separator: "\n").map(String.init)
        var events: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["time"] is String && object["level"] is String, "\(line)")
            if let event = object["event"] as? String { events.append(event) }
            if object["event"] as? String == "smtp-session" {
                #expect(object["stored"] as? Int == 1)
                #expect(object["ending"] as? String == "QUIT")
            }
        }
        #expect(events.contains("request") && events.contains("smtp-session"))
        let everything = program.outputText + program.errorText
        #expect(!everything.contains("Secret-subject-4711") && !everything.contains("Secret-body-4711"))
    }

    @Test func anUnknownFormatIsRefused() throws {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["--log-format", "xml"])
        #expect(try program.waitForExit(within: 10) == 2)
        #expect(program.errorText.contains("--log-format is text or json"))
    }
}
