import MailroomService
import SMTP

/// The SMTP door's one translation of the service's errors into replies.
extension ServiceError {
    var reply: Reply {
        switch self {
        case .tooLarge:
            Reply(552, "5.3.4", "The message is too large for Mailroom.")
        // Mail is never refused for what it says: whatever else went wrong, nothing was stored
        // and the sender keeps the message and tries again later.
        case .unavailable, .refused, .badInput, .notFound:
            Reply(451, "4.3.0", "Mailroom could not store the message; please send it again later.")
        }
    }
}
