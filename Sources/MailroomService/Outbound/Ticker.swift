import Dispatch
import Synchronization

/// Runs a queue's `pump` once a second on its own dispatch queue, until stopped: what wakes a
/// queue when a retry falls due (new work wakes it at once).
final class Ticker: Sendable {
    private let source: Mutex<SourceBox?>

    init(on queue: DispatchQueue, _ tick: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + 1, repeating: 1)
        source.setEventHandler(handler: tick)
        source.resume()
        self.source = Mutex(SourceBox(source))
    }

    func stop() {
        source.withLock { box in
            box?.source.cancel()
            box = nil
        }
    }

    /// A Dispatch source is safe to cancel from any thread.
    private final class SourceBox: @unchecked Sendable {
        let source: DispatchSourceTimer

        init(_ source: DispatchSourceTimer) {
            self.source = source
        }
    }
}

/// A queue's "there is work" call, as the service keeps it until the queue stops.
///
/// A class, not a bare closure: a closure kept in a `Mutex` and read with `withLock { $0 }` is
/// wrapped in two more conversion thunks at every read (the mutex holds it in generic form), so
/// each wake-up would cost more than the one before.
final class Wakeup: Sendable {
    private let call: @Sendable () -> Void

    init(_ call: @escaping @Sendable () -> Void) {
        self.call = call
    }

    func callAsFunction() {
        call()
    }
}
