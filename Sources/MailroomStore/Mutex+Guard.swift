import Synchronization

extension Mutex where Value == Void {
    /// Runs `body` while holding the lock, for state kept beside the mutex rather than in it.
    ///
    /// `Mutex.withLock` asks that whatever its body returns can be sent to another thread, which
    /// a connection or a caller's own result cannot be; a `Mutex<Void>` guarding properties that
    /// live outside it (connections are not `Sendable`) needs no such promise, since nothing
    /// leaves the lock that was inside it.
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        var outcome: Swift.Result<Result, Failure>?
        withLock { _ in outcome = Swift.Result { () throws(Failure) in try body() } }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: preconditionFailure("Mutex.withLock returned without running its body")
        }
    }
}
