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

/// What waits for a loop, in the order the loop takes it: the answers as they came, then the
/// hub's wake-ups, however many arrived, as one pass over the streams. A person's answer is a
/// few bytes on one socket; a pass can be thousands of writes, and must not go first.
struct Handbacks {
    private var answers: [Handback] = []
    private var hasEvents = false

    mutating func append(_ handback: Handback) {
        if case .events = handback { hasEvents = true } else { answers.append(handback) }
    }

    /// Everything waiting: the answers, then one `.events` if any wake-up came.
    mutating func takeAll() -> [Handback] {
        defer { hasEvents = false }
        return takeAnswers() + (hasEvents ? [.events] : [])
    }

    /// The answers only, for a loop in the middle of a pass: a wake-up stays for its next turn.
    mutating func takeAnswers() -> [Handback] {
        defer { answers = [] }
        return answers
    }
}

/// The hand-over from worker threads to a loop: a queue and an event that wakes the loop.
final class Replies: @unchecked Sendable {
    // The event pointer is used only under the lock, and never after `close`.
    private struct State: @unchecked Sendable {
        var queue = Handbacks()
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
        state.withLock { $0.queue.takeAll() }
    }

    /// What `take` would give but the hub's wake-ups (see `Handbacks.takeAnswers`).
    func takeAnswers() -> [Handback] {
        state.withLock { $0.queue.takeAnswers() }
    }

    func close() {
        state.withLock { $0.wake = nil }
    }
}
