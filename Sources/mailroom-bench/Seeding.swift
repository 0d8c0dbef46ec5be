import Glibc
import MailroomCore
import MailroomStore

/// `mailroom-bench seed PATH INBOX [ARCHIVE]`: writes a new database for `scripts/bench-http`
/// through the store, as Mailroom itself would, in one transaction instead of one post each.
///
/// Inbox messages get ids 1...INBOX (the newest on top), Archive's follow; about two in three
/// are read and one in seven is flagged, so the page shows every kind of row.
enum Seeding {
    static let usage = "usage: mailroom-bench seed PATH INBOX [ARCHIVE]"

    static func run(_ arguments: [String]) -> Int32 {
        guard (2...3).contains(arguments.count),
              let inbox = Int(arguments[1]), inbox >= 0,
              let archive = arguments.count == 3 ? Int(arguments[2]) : 0, archive >= 0
        else {
            print(usage)
            return 2
        }
        let path = arguments[0]
        do {
            let store = try Store(path: path)
            defer { store.close() }
            // Seeding an existing file would mix its messages with these and skew every figure.
            guard store.isNew else {
                print("mailroom-bench seed: \(path) already exists")
                return 1
            }
            let empty = try store.load()
            let seeded = try library(inbox: inbox, archive: archive, startingFrom: empty)
            try store.save(seeded.changes(since: empty))
            return 0
        } catch {
            print("mailroom-bench seed: \(error)")
            return 1
        }
    }

    static func library(inbox: Int, archive: Int, startingFrom start: Library) throws -> Library {
        var library = start
        var index = 0
        let total = inbox + archive
        for (mailbox, count) in [(MailboxID.inbox, inbox), (.archive, archive)] {
            var read: [MessageID] = []
            var flagged: [MessageID] = []
            for _ in 0..<count {
                let draft = Draft(
                    subject: "Quarterly plan, item \(index): \(topics[index % topics.count])",
                    body: "Hello team, here is the update for item \(index). Everything is on track & <fine>.",
                    author: authors[index % authors.count])
                // An hour apart, the newest a day before 2023-11-14.
                let message = try library.add(draft, to: mailbox, at: 1_699_900_000 - Int64(total - index) * 3_600)
                if index % 3 != 0 { read.append(message.id) }
                if index % 7 == 0 { flagged.append(message.id) }
                index += 1
            }
            try library.update(mailbox) { box in
                box.setUnread(false, for: read)
                box.setFlagged(true, for: flagged)
            }
        }
        return library
    }

    static let topics = [
        "budget review", "the new printer", "Friday's offsite", "hiring “senior” roles",
        "café order", "server maintenance window", "Q&A notes", "holiday rota",
    ]
    static let authors = [
        "Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson", "Linus", "Margaret Hamilton",
        "Dennis Ritchie", "Barbara Liskov", "Ken Thompson", "Frances Allen", "Edsger Dijkstra",
    ]
}
