/// A response body made a piece at a time as the connection writes it, so a large answer is
/// never held whole: the server asks for the next piece only once the last has been sent.
///
/// The server uses a source from one thread at a time and lets go of it once the body is
/// written or the connection closes, whichever comes first: what it holds (a download slot, a
/// decoder) is given back in its `deinit`.
public protocol BodySource: AnyObject, Sendable {
    /// Every byte the body will have: its Content-Length.
    var length: Int { get }

    /// The next piece of the body, at most `limit` bytes; empty once it is all made. Nil when it
    /// cannot go on (the message was deleted meanwhile): the connection then closes, and the
    /// client sees a body shorter than its Content-Length.
    func next(atMost limit: Int) -> [UInt8]?
}
