import Dispatch
import Glibc
import Synchronization

/// Threads for requests that wait on something other than the network: a POST waits for its
/// batch to be committed. The event loops hand such requests over and go on serving.
///
/// The pool grows on demand up to `limit` threads, and a waiting thread costs nothing but its
/// stack, so up to `limit` posts arriving together can wait on one commit together. (Dispatch's
/// global queue was tried first: on Linux it keeps about one thread per core, so posts queued
/// behind a blocked thread and each commit carried two or three of them.)
final class Workers: Sendable {
    /// One pool for the process; its threads live as long as the process does.
    static let shared = Workers(limit: 64)

    private struct State {
        /// Jobs not yet taken, oldest first: no more than the posts in flight beyond `limit`.
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
        /// Threads waiting for a job, or about to.
        var waiting = 0

        var queued: Int { jobs.count }

        mutating func take() -> (@Sendable () -> Void)? {
            jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }

    let limit: Int
    private let state = Mutex(State())
    /// One signal per job queued.
    private let available = DispatchSemaphore(value: 0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `job` on a pool thread: an idle one, a new one while under the limit, or else the
    /// first to finish what it is doing.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let grows = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard state.queued > state.waiting, state.threads < limit else { return false }
            state.threads += 1
            return true
        }
        available.signal()
        if grows && !startThread() {
            state.withLock { $0.threads -= 1 }
        }
    }

    /// How many threads the pool has made so far.
    var threadCount: Int { state.withLock { $0.threads } }

    private func startThread() -> Bool {
        guard case .success(let thread) = MailroomNet.startThread({ self.work() }) else { return false }
        pthread_detach(thread)
        return true
    }

    private func work() -> Never {
        while true {
            state.withLock { $0.waiting += 1 }
            available.wait()
            let job = state.withLock { state in
                state.waiting -= 1
                return state.take()
            }
            job?()
        }
    }
}
