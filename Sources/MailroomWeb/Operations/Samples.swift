import MailroomCore

/// The six demo messages of `mailroom --samples`, for screenshots and tests; a new Mailroom
/// otherwise opens on the `Welcome` alone.
public enum Samples {
    public static func mailbox(now: Int64) -> Mailbox {
        let drafts: [(String, String, String, Int64)] = [
            ("Welcome to Mailroom", "Mailroom",
             "This is the shared inbox for everyone on the network. Press Edit to select messages, or open one to read it.",
             0),
            ("Lunch on Friday?", "Priya",
             "Thinking of the noodle place around the corner at 12:30. Reply here if you're in.", 3_600),
            ("Printer on the second floor is fixed", "Marcus",
             "New toner and a firmware update. Please don't print 300-page PDFs again.", 7_200),
            ("Wi-Fi password changes Monday", "IT",
             "The guest network password rotates on Monday morning. The new one will be on the board by the kitchen.",
             86_400),
            ("Plants need watering", "Jun", "", 90_000),
            ("Quarterly numbers", "Alex",
             "The spreadsheet is in the shared folder. Highlights: support tickets down 12%, response time halved.",
             172_800),
        ]
        var mailbox = Mailbox()
        // Added oldest first so the newest ends on top, as new messages do.
        for (subject, author, body, age) in drafts.reversed() {
            _ = try? mailbox.add(Draft(subject: subject, body: body, author: author), at: now - age)
        }
        let read = mailbox.messages.filter { $0.subject.hasPrefix("Wi-Fi") || $0.subject.hasPrefix("Quarterly") }.map(\.id)
        mailbox.setUnread(false, for: read)
        mailbox.setFlagged(true, for: mailbox.messages.filter { $0.subject.hasPrefix("Lunch") }.map(\.id))
        return mailbox
    }

    /// The sample Inbox inside an otherwise empty library.
    public static func library(now: Int64) -> Library {
        Library(inbox: mailbox(now: now))
    }
}
