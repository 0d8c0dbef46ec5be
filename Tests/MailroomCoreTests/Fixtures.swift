import MailroomCore

/// Builds a mailbox whose rows, top to bottom, have the given subjects and ids 1, 2, 3, ...
func mailbox(_ subjects: String...) -> Mailbox {
    mailbox(subjects)
}

func mailbox(_ subjects: [String]) -> Mailbox {
    Mailbox(messages: subjects.enumerated().map { offset, subject in
        Message(id: MessageID(Int64(offset + 1)), subject: subject, createdAt: 1_000 + Int64(offset))
    })
}

extension Mailbox {
    /// The subjects, top to bottom.
    var subjects: [String] { messages.map(\.subject) }
}

/// `count` copies of a character that is not white space.
func text(_ count: Int, _ character: Character = "x") -> String {
    String(repeating: character, count: count)
}

/// "A B C" -> ["A", "B", "C"]; "" -> [].
func letters(_ spaced: String) -> [String] {
    spaced.split(separator: " ").map(String.init)
}
