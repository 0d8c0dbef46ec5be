import Glibc
import Testing

/// The real `mailroom` program: flags, the start-up line, serving, and a clean exit on SIGTERM.
@Suite struct ProcessTests {
    @Test func theProgramServesTheInboxAndExitsCleanlyOnSigterm() throws {
        let database = "/tmp/mailroom-process-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) } }
        let program = try ChildProcess(
            executable: try MailroomExecutable.path(),
            arguments: ["--port", "0", "--smtp-port", "0", "--no-samples", "--quiet", "--db", database, "--public", PackageLocation.publicFolder])
        let banner = try program.waitForOutputLine(within: 10) { $0.hasPrefix("Mailroom listening on http://127.0.0.1:") }
        let port = try #require(Self.port(in: banner), "no port in: \(banner)")

        let browser = BrowserSession(port: port)
        let page = try browser.get("/mailboxes/inbox")
        #expect(browser.status == 200)
        #expect(page.heading == "Inbox")
        #expect(page.isEmptyState)
        #expect(try browser.client.send("GET", "/style.css").header("Content-Type") == "text/css; charset=utf-8")
        browser.client.close()

        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)
        #expect(program.outputText.contains("shutting down"))
    }

    @Test func helpExitsZeroAndListsThePortFlag() throws {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["--help"])
        #expect(try program.waitForExit(within: 10) == 0)
        #expect(program.outputText.contains("--port"))
    }

    @Test func anUnknownFlagExitsTwoAndSaysWhichFlag() throws {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["--frobnicate"])
        #expect(try program.waitForExit(within: 10) == 2)
        #expect(program.errorText.contains("--frobnicate"))
    }

    /// The port in `Mailroom listening on http://127.0.0.1:PORT/ ...`.
    private static func port(in banner: String) -> Int? {
        let afterHost = banner.split(separator: "127.0.0.1:", maxSplits: 1).last ?? ""
        return Int(afterHost.prefix { $0.isNumber })
    }
}
