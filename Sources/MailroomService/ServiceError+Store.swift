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
