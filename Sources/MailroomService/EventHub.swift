import Synchronization

/// Where changes are announced to every live list: the app publishes an event after each
/// commit, and each event loop is woken to write it to the streams it holds. The last
/// `capacity` events are kept, so a client that lost its connection is sent what it missed.
public final class EventHub: Sendable {
    private struct State {
        var recent: [ServerEvent] = []
        /// Where the oldest kept event is in `recent` (a ring once full).
        var start = 0
        var lastID: Int64
        var listeners: [UInt64: @Sendable () -> Void] = [:]
        var nextListener: UInt64 = 0
    }

    public let capacity: Int
    private let state: Mutex<State>

    /// `lastID`: the id the stream starts from (the store's revision at start).
    public init(lastID: Int64 = 0, capacity: Int = 1_024) {
        self.capacity = max(capacity, 1)
        self.state = Mutex(State(lastID: lastID))
    }

    /// The id of the newest event (or the starting id when there is none yet).
    public var lastID: Int64 { state.withLock { $0.lastID } }

    /// Keeps `event` and wakes every listener. Ids must increase; an event that does not is
    /// dropped (two commits can race to publish, and the later revision covers the earlier).
    public func publish(_ event: ServerEvent) {
        let listeners = state.withLock { state -> [@Sendable () -> Void] in
            guard event.id > state.lastID else { return [] }
            state.lastID = event.id
            if state.recent.count < capacity {
                state.recent.append(event)
            } else {
                state.recent[state.start] = event
                state.start = (state.start + 1) % capacity
            }
            return Array(state.listeners.values)
        }
        for wake in listeners { wake() }
    }

    /// Calls `wake` (on the publishing thread) after each event; the token stops it.
    public func listen(_ wake: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = wake
            return state.nextListener
        }
    }

    public func stopListening(_ token: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: token) }
    }

    /// The events after `id`, oldest first; nil when some of them are no longer kept (the
    /// client must then start over). An id from the future gets nothing.
    public func events(after id: Int64) -> [ServerEvent]? {
        state.withLock { state in
            guard id < state.lastID else { return [] }
            let ordered = state.recent.count < capacity
                ? state.recent
                : Array(state.recent[state.start...] + state.recent[..<state.start])
            // Ids follow the store's revisions one by one: the event just after `id` must be kept.
            guard let first = ordered.first, first.id <= id + 1 else { return nil }
            return ordered.filter { $0.id > id }
        }
    }
}
