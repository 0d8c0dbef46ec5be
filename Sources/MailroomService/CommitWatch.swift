#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Lets `wait` calls sleep until the next commit instead of polling.
public final class CommitWatch: Sendable {
    private let sleepers = Mutex<[ObjectIdentifier: DispatchSemaphore]>([:])
    private let waiting = Atomic<Int>(0)
    /// When the last commit was made, in nanoseconds of the monotonic clock (0: none yet).
    private let lastCommit = Atomic<UInt64>(0)

    /// Nanoseconds since the last commit, or nil before the first.
    public func sinceLastCommit() -> UInt64? {
        let last = lastCommit.load(ordering: .acquiring)
        guard last > 0 else { return nil }
        return Self.now() &- last
    }

    private static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Counts a waiter in; false when `limit` are waiting already.
    public func enter(limit: Int) -> Bool {
        guard waiting.wrappingAdd(1, ordering: .relaxed).newValue <= limit else {
            waiting.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    public func leave() {
        waiting.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Called after every durable commit: wakes every sleeper.
    func committed() {
        lastCommit.store(Self.now(), ordering: .releasing)
        sleepers.withLock { sleepers in
            for sleeper in sleepers.values { sleeper.signal() }
        }
    }

    /// Sleeps until the store's revision passes `seen` (true) or `deadline` passes (false).
    public func wait(beyond seen: Int64, revision: () -> Int64, until deadline: DispatchTime) -> Bool {
        let sleeper = DispatchSemaphore(value: 0)
        let key = ObjectIdentifier(sleeper)
        sleepers.withLock { $0[key] = sleeper }
        defer { sleepers.withLock { $0[key] = nil } }
        while true {
            // Checked after joining the sleepers: a commit between the two still wakes this one.
            if revision() > seen { return true }
            if sleeper.wait(timeout: deadline) == .timedOut { return revision() > seen }
        }
    }
}
