import Dispatch
import Glibc
import Synchronization

/// Real threads for tests that need several clients blocked in I/O at the same time. (Dispatch's
/// pool on a 2-core machine would run only a couple of them at once.)
enum TestThreads {
    /// Starts `body` on a detached thread of its own; `finished` is signalled when it returns.
    static func start(_ body: @escaping @Sendable () -> Void) throws -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        let job = Job { body(); finished.signal() }
        let context = Unmanaged.passRetained(job).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Job>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            throw TestFailure("pthread_create failed: \(String(cString: strerror(status)))")
        }
        pthread_detach(thread)
        return finished
    }

    /// Runs `body(0)`, `body(1)`, ... `body(count - 1)` each on its own thread, releases them all
    /// at once when every one has started, and waits for all of them, at most `seconds`.
    static func runTogether(_ count: Int, within seconds: Double = 30, _ body: @escaping @Sendable (Int) -> Void) throws {
        let ready = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        var done: [DispatchSemaphore] = []
        for index in 0..<count {
            done.append(try start {
                ready.signal()
                gate.wait()
                body(index)
            })
        }
        let deadline = DispatchTime.now() + seconds
        for _ in 0..<count {
            guard ready.wait(timeout: deadline) == .success else {
                // Let the ones that did start run their (bounded) bodies and end.
                for _ in 0..<count { gate.signal() }
                throw TestFailure("the threads did not start within \(seconds) s")
            }
        }
        for _ in 0..<count { gate.signal() }
        for semaphore in done {
            guard semaphore.wait(timeout: deadline) == .success else {
                throw TestFailure("the threads did not finish within \(seconds) s")
            }
        }
    }

    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// A value that several test threads update, behind a lock; a class, so closures can share it.
final class SharedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
