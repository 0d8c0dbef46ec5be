import Dispatch
import Synchronization
import Testing
@testable import MailroomNet

/// The threads that posts wait on: the pool grows to its limit and no further, and jobs beyond
/// the limit wait their turn instead of being lost.
@Suite struct WorkersTests {
    @Test func jobsBeyondTheLimitWaitForAThreadAndAllRun() {
        let workers = Workers(limit: 3)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let running = Counter()
        for _ in 0..<10 {
            workers.submit {
                running.add(1)
                started.signal()
                gate.wait()
                running.add(-1)
                finished.signal()
            }
        }
        // Three start, as many as there are threads; the rest wait, since all three are busy.
        for _ in 0..<3 { #expect(started.wait(timeout: .now() + 10) == .success) }
        #expect(workers.threadCount == 3)
        #expect(running.value == 3)
        for _ in 0..<10 { gate.signal() }
        for job in 0..<10 { #expect(finished.wait(timeout: .now() + 10) == .success, "job \(job) never finished") }
        #expect(workers.threadCount == 3)
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    func add(_ amount: Int) { count.withLock { $0 += amount } }
    var value: Int { count.withLock { $0 } }
}
