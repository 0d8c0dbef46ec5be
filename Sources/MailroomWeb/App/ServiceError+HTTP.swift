import HTTP
import MailroomService

/// The web door's one translation of the service's errors into answers.
extension HTTPError {
    init(_ error: ServiceError) {
        let status: Status = switch error {
        case .notFound: .notFound
        case .refused, .badInput: .badRequest
        case .tooLarge: .contentTooLarge
        // The page says the change was not made; the person may simply try again.
        case .unavailable: .internalServerError
        }
        self.init(status, error.message)
    }

    /// Whatever a command run for a request threw: its own HTTP error, the service's, or (not
    /// expected) anything else as a 500 that says so.
    init(_ error: any Error) {
        switch error {
        case let error as HTTPError: self = error
        case let error as ServiceError: self.init(error)
        default: self.init(.internalServerError, "Mailroom could not make this change. (\(error))")
        }
    }
}
