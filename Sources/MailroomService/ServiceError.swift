/// Everything the service can answer instead of doing what it was asked; each door says it in
/// its own words (an HTTP status, an SMTP reply, an exit code), each in one place.
public enum ServiceError: Error, Equatable, Sendable {
    /// What was named (a message, a mailbox) is not there.
    case notFound(String)
    /// The change was refused for what it asks (a name in use, a move that does not fit, a
    /// mailbox that cannot take mail); asking again will not help.
    case refused(String)
    /// The request cannot be read as asked (a search that does not parse, a missing field).
    case badInput(String)
    /// Larger than the service takes.
    case tooLarge(String)
    /// Storage failed, so nothing was changed; the same request may succeed later.
    case unavailable(String)

    /// The sentence for a person.
    public var message: String {
        switch self {
        case .notFound(let text), .refused(let text), .badInput(let text), .tooLarge(let text), .unavailable(let text):
            text
        }
    }
}
