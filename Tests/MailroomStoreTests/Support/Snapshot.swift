import MailroomCore

/// Everything a library shows: its mailboxes with their names and messages in order, and the
/// next ids.
///
/// Tests compare snapshots rather than libraries because `Mailbox`'s synthesized `==` also
/// compares its private `nextID`, which `Library.add` never advances and which a mailbox built
/// from stored messages derives from them, so equal contents can compare unequal. Compare
/// libraries directly once `Mailbox` leaves `nextID` out of its equality.
struct Snapshot: Equatable, CustomStringConvertible {
    struct Box: Equatable {
        let id: MailboxID
        let name: String
        let messages: [Message]
    }

    let boxes: [Box]
    let nextMessageID: Int64
    let nextMailboxID: Int64

    init(_ library: Library) {
        boxes = library.mailboxes.map { Box(id: $0.id, name: $0.name, messages: $0.messages) }
        nextMessageID = library.nextMessageID
        nextMailboxID = library.nextMailboxID
    }

    var description: String {
        let lines = boxes.map { box in
            "\(box.id) \(box.name): " + box.messages.map { message in
                "\(message.id)\(message.isUnread ? "u" : "")\(message.isFlagged ? "f" : "")"
                    + (message.origin.map { "<\($0.mailbox)@\($0.offset)" } ?? "")
            }.joined(separator: " ")
        }
        return (lines + ["next message \(nextMessageID), next mailbox \(nextMailboxID)"]).joined(separator: "\n")
    }
}
