import Glibc
import MailroomCore
import MailroomStore

/// `mailroom-bench seed PATH INBOX [ARCHIVE]`: writes a new database for `scripts/bench-http`
/// through the store, as Mailroom itself would, in large transactions instead of one post each.
///
/// Inbox messages get ids 1...INBOX (the newest on top), Archive's follow; about two in three
/// are read and one in seven is flagged, so the page shows every kind of row. Bodies are 1–4 KB
/// of words drawn from a fixed vocabulary with a Zipf-like spread (a few words are everywhere,
/// most are rare), so that searches have real work to do. The same arguments make the same file.
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
            try store.setWriterCache(megabytes: 512)
            try seed(store, inbox: inbox, archive: archive)
            return 0
        } catch {
            print("mailroom-bench seed: \(error)")
            return 1
        }
    }

    static func seed(_ store: Store, inbox: Int, archive: Int) throws {
        var words = Words(seed: 0x5EED)
        let total = inbox + archive
        var index = 0
        for (mailbox, count) in [(MailboxID.inbox, inbox), (.archive, archive)] {
            var done = 0
            while done < count {
                let batch = min(20_000, count - done)
                try store.write { transaction in
                    for _ in 0..<batch {
                        let id = Int64(index + 1)
                        let message = Message(
                            id: MessageID(id),
                            subject: "\(words.phrase(3...7)) (\(topics[index % topics.count]))",
                            body: words.body(bytes: 1_024 + Int(words.next() % 3_072)),
                            author: authors[index % authors.count],
                            // A minute apart, the newest a day before 2023-11-14.
                            createdAt: 1_699_900_000 - Int64(total - index) * 60)
                        // Bottom first, so the newest (highest id) is on top.
                        try transaction.insert(message, into: mailbox, rank: id << 20, origin: nil)
                        if index % 3 != 0 || index % 7 == 0 {
                            try transaction.setUnread(index % 3 == 0, for: [message.id], in: mailbox)
                            if index % 7 == 0 { try transaction.setFlagged(true, for: [message.id], in: mailbox) }
                        }
                        index += 1
                    }
                }
                done += batch
            }
        }
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

/// Words from a fixed vocabulary of 5,000, the k-th most common drawn about 1/k as often.
struct Words {
    private var state: UInt64
    private static let vocabulary: [String] = {
        let syllables = ["ba", "ko", "ri", "te", "mu", "sa", "ne", "lo", "vi", "da", "pe", "zu", "fi", "go", "ha", "ju"]
        let common = ["the", "report", "printer", "meeting", "invoice", "scan", "backup", "server", "team", "update",
                      "paper", "jam", "toner", "disk", "alert", "power", "network", "budget", "office", "schedule"]
        var words = common
        var serial = 0
        while words.count < 5_000 {
            var word = ""
            var value = serial
            repeat {
                word += syllables[value % syllables.count]
                value /= syllables.count
            } while value > 0
            words.append(word + "x")
            serial += 1
        }
        return words
    }()
    /// The cumulative weights of 1/k, scaled to 2^32, for drawing by binary search.
    private static let cumulative: [UInt64] = {
        let weights = (1...vocabulary.count).map { 1.0 / Double($0) }
        let sum = weights.reduce(0, +)
        var running = 0.0
        return weights.map { weight in
            running += weight
            return UInt64(running / sum * 4_294_967_296)
        }
    }()

    init(seed: UInt64) {
        state = seed
    }

    /// splitmix64: small, fast and the same on every machine.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func word() -> String {
        let target = next() & 0xFFFF_FFFF
        var low = 0
        var high = Self.cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if Self.cumulative[middle] <= target { low = middle + 1 } else { high = middle }
        }
        return Self.vocabulary[low]
    }

    mutating func phrase(_ count: ClosedRange<Int>) -> String {
        let length = count.lowerBound + Int(next() % UInt64(count.count))
        return (0..<length).map { _ in word() }.joined(separator: " ")
    }

    mutating func body(bytes: Int) -> String {
        var text = ""
        text.reserveCapacity(bytes + 16)
        var sentence = 0
        while text.utf8.count < bytes {
            text += word()
            sentence += 1
            if sentence > 8 && next() % 6 == 0 {
                text += ".\n"
                sentence = 0
            } else {
                text += " "
            }
        }
        return text
    }
}
