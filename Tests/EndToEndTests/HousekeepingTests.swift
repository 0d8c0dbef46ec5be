import Dispatch
import HTTP
import MailroomNet
import Testing

/// The server's own upkeep (in Mailroom: handing unused memory back) runs on a loop's timer,
/// again and again, between requests that are answered all the while.
@Suite struct HousekeepingTests {
    @Test func housekeepingRunsEverySoOftenWhileRequestsAreAnswered() throws {
        let runs = DispatchSemaphore(value: 0)
        let server = try Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2), logRequests: false,
            housekeeping: Housekeeping(everySeconds: 1) { runs.signal() },
            handler: { _ in Response(text: "ok") })
        try server.start()
        defer { server.stop() }
        for run in 1...2 {
            #expect(runs.wait(timeout: .now() + 10) == .success, "housekeeping run \(run) did not come")
            #expect(try HTTPClient(port: server.port).send("GET", "/").status == 200)
        }
    }
}
