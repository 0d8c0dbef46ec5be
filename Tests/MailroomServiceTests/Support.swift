import Dispatch
import MailroomCore
import MailroomService
import Synchronization

/// The time every service in these tests lives at.
let fixedNow: Int64 = 1_764_338_700

/// A raw message from `from` to `to` with `subject`.
func rawMail(_ subject: String, from: String = "sender@example.test", to: String = "desk@example.test") -> [UInt8] {
    Array("From: \(from)\r\nTo: \(to)\r\nSubject: \(subject)\r\n\r\nAbout \(subject).\r\n".utf8)
}

extension Mailroom {
    /// Mails `raw` as the SMTP door does and returns once it is stored (or refused).
    func deliver(_ raw: [UInt8], to recipients: [String] = ["desk@example.test"]) -> Result<[MessageID], ServiceError> {
        let stored = DispatchSemaphore(value: 0)
        let outcome = Shared<Result<[MessageID], ServiceError>?>(nil)
        receiveMail(raw, from: "sender@example.test", to: recipients, peer: "127.0.0.1") { result in
            outcome.value.withLock { $0 = result }
            stored.signal()
        }
        stored.wait()
        return outcome.value.withLock { $0 } ?? .failure(.unavailable("no outcome"))
    }
}

/// A value that closures on other threads can change.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}

/// A service over Inbox and Archive, each holding the messages named (ids 1, 2, … in order,
/// the Inbox's first), all unread.
func makeService(
    inbox: [String], archive: [String] = [], beforeCommit: BeforeCommit? = nil, now: @escaping @Sendable () -> Int64 = { fixedNow }
) throws -> Mailroom {
    var next: Int64 = 1
    func messages(_ subjects: [String]) -> [Message] {
        subjects.map { subject in
            defer { next += 1 }
            return Message(id: MessageID(next), subject: subject, body: "About \(subject).", author: "Ada",
                           createdAt: fixedNow - next * 60, isUnread: true, isFlagged: false)
        }
    }
    let library = Library(mailboxes: [
        Mailbox(id: .inbox, name: "Inbox", messages: messages(inbox)),
        Mailbox(id: .archive, name: "Archive", messages: messages(archive)),
        Mailbox(id: .trash, name: "Trash", messages: []),
    ])
    return try Mailroom(library: library, now: now, beforeCommit: beforeCommit)
}

extension Mailroom {
    /// The subjects in `box`, top first.
    func subjects(in box: MailboxID) -> [String] {
        library[box]?.messages.map(\.subject) ?? []
    }
}
