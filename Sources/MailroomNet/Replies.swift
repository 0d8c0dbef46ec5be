import HTTP
import Synchronization
private import CLibevent

/// One HTTP answer computed off the loop, for connection `serial`.
struct Answer: Sendable {
    let serial: UInt64
    let response: Response
    let method: HTTP.Method
    let target: String
    let keepAlive: Bool
    let echoKeepAlive: Bool
    let started: Clock.Instant
}

/// What a worker thread hands back to a loop: an HTTP answer, or the outcome of storing a mail.
enum Handback: Sendable {
    case answer(Answer)
    case stored(serial: UInt64, outcome: DeliveryOutcome)
    /// The hub has a new event for the streams.
    case events
}

/// The hand-over from worker threads to a loop: a queue and an event that wakes the loop.
final class Replies: @unchecked Sendable {
    // The event pointer is used only under the lock, and never after `close`.
    private struct State: @unchecked Sendable {
        var queue: [Handback] = []
        var wake: OpaquePointer?
    }

    private let state = Mutex(State())

    func attach(wake: OpaquePointer?) {
        state.withLock { $0.wake = wake }
    }

    func post(_ reply: Handback) {
        state.withLock { state in
            guard let wake = state.wake else { return }
            state.queue.append(reply)
            event_active(wake, 0, 0)
        }
    }

    func take() -> [Handback] {
        state.withLock { state in
            defer { state.queue = [] }
            return state.queue
        }
    }

    func close() {
        state.withLock { $0.wake = nil }
    }
}
