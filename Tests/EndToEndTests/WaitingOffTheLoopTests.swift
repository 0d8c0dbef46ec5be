import Dispatch
import HTTP
import MailroomCore
import Testing

/// Opening a message marks it read, a change that waits for its commit; it waits on a worker
/// thread, so the loop (one here) goes on answering everyone else meanwhile.
@Suite struct WaitingOffTheLoopTests {
    @Test func openingAMessageWaitsForItsSaveWithoutHoldingUpOtherRequests() throws {
        let saving = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try TestServer(library: TestServer.library(inbox: ["Unread"]), threads: 1) {
            saving.signal()
            release.wait()
        }
        // However the test ends, the held save is let go, so that the server can stop.
        defer { for _ in 0..<2 { release.signal() } }
        let port = server.port
        let opened = SharedValue<Int?>(nil)
        let finished = try TestThreads.start {
            let status = try? HTTPClient(port: port, timeoutSeconds: 20)
                .send("GET", "/messages/1", headers: [("Sec-Fetch-Site", "same-origin")]).status
            opened.withLock { $0 = status }
        }
        #expect(saving.wait(timeout: .now() + 10) == .success, "opening the message never saved the read mark")

        // The save is held: the only loop still answers a page and the stylesheet.
        #expect(try HTTPClient(port: port).send("GET", "/mailboxes/inbox").status == 200)
        #expect(try HTTPClient(port: port).send("GET", "/style.css").status == 200)
        #expect(opened.withLock { $0 } == nil, "the message page came before its read mark was saved")

        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(opened.withLock { $0 } == 200)
        #expect(server.app.library.message(MessageID(1))?.isUnread == false)
    }
}
