import MailroomCore
import MailroomStore

extension ServiceError {
    /// What a store error means to a caller: a refusal is the request's fault, anything else
    /// is storage failing while `doing` (a sentence such as "Mailroom could not make this change.").
    public init(_ error: StoreError, doing: String = ServiceError.changing) {
        switch error {
        case .refused(let refusal): self = .refused(refusal.message)
        default: self = .unavailable("\(doing) (\(error))")
        }
    }

    public static let changing = "Mailroom could not make this change."
    public static let reading = "Mailroom could not read its database."
}

/// Runs store calls, their errors said as `ServiceError`.
public func storing<Result>(doing: String = ServiceError.changing, _ body: () throws(StoreError) -> Result) throws(ServiceError) -> Result {
    do throws(StoreError) {
        return try body()
    } catch {
        throw ServiceError(error, doing: doing)
    }
}

/// Store calls about one message or mailbox named by the caller, whose absence is `.notFound`
/// rather than a refusal (a mailbox named in a form field as a target stays a refusal).
func naming<Result>(_ body: () throws(StoreError) -> Result) throws(ServiceError) -> Result {
    do throws(StoreError) {
        return try body()
    } catch .refused(let refusal) where refusal.isAbsence {
        throw .notFound(refusal.message)
    } catch {
        throw ServiceError(error)
    }
}

extension LibraryError {
    /// Whether the refusal is that what was named is not there.
    var isAbsence: Bool {
        switch self {
        case .unknownMailbox, .mailbox(.unknownMessage): true
        default: false
        }
    }
}
