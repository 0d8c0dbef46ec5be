/// What keeps an answer right for the same request: while `isCurrent` holds, a server may send
/// the same bytes again to the same client for the same request bytes, without asking the
/// application (`Response.repeating(while:)`).
///
/// The application gives it only to answers that depend on nothing but the request's bytes,
/// the client's address and state that `isCurrent` watches: a kept list page (the store's
/// revision, the day), a static file (until its copy in memory is checked against the disk).
public struct Repeatable: Sendable {
    private let current: @Sendable () -> Bool

    public init(while current: @escaping @Sendable () -> Bool) {
        self.current = current
    }

    /// Whether the answer is still what the application would give.
    public var isCurrent: Bool { current() }
}

extension Response {
    /// This prepared response, marked as one a server may repeat for the same request while
    /// `condition` holds. Any later change to the response drops the mark, as it drops the
    /// prepared head; a response that is not prepared is returned unmarked.
    public func repeating(while condition: Repeatable) -> Response {
        guard isPrepared else { return self }
        var copy = self
        copy.repeatable = condition
        return copy
    }
}
