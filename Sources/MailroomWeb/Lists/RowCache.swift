import HTML
import HTTP
import MailroomCore
import MailroomStore
import Synchronization

/// Rows rendered earlier, reused while the message, its mail details and the way it is shown
/// stay the same.
///
/// A page of 1,000 rows then costs little more than copying bytes; only rows whose message
/// changed since the last render are built again.
final class RowCache: Sendable {
    /// Everything besides the message that a row's markup depends on.
    enum Variant: Hashable, Sendable {
        case browsing(MailboxID)
        /// `reorderable` is false in a search, whose rows offer no Move up/down.
        case editing(MailboxID, selected: Bool, first: Bool, last: Bool, reorderable: Bool)
    }

    /// One row as one kind of page shows it: a browsing and an editing tab do not evict each other.
    struct Key: Hashable, Sendable {
        let id: MessageID
        let variant: Variant

        /// One word hashed rather than each part of the variant: this runs for every row shown.
        func hash(into hasher: inout Hasher) {
            var word = UInt64(truncatingIfNeeded: id.rawValue) &* 0x9E37_79B9_7F4A_7C15
            switch variant {
            case .browsing(let box):
                word ^= UInt64(truncatingIfNeeded: box.rawValue) << 4
            case .editing(let box, let selected, let first, let last, let reorderable):
                word ^= UInt64(truncatingIfNeeded: box.rawValue) << 5 | 1
                    | (selected ? 2 : 0) | (first ? 4 : 0) | (last ? 8 : 0) | (reorderable ? 16 : 0)
            }
            hasher.combine(word)
        }
    }

    /// A class, so that a lookup costs one reference count rather than one per field.
    final class Entry: Sendable {
        let message: Message
        /// What a mailed message's row adds (recipient, size, attachments); nil for a posted one.
        let details: RowDetails?
        /// Days since the epoch: dates read "14:05" today and "Nov 28" tomorrow.
        let day: Int64
        let html: RenderedHTML

        init(message: Message, details: RowDetails?, day: Int64, html: RenderedHTML) {
            self.message = message
            self.details = details
            self.day = day
            self.html = html
        }
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// A batch for one page: lookups need no lock, and new rows are stored once at the end.
    /// `details` are the page's mailed messages' details, read for the page in one statement.
    func batch(day: Int64, details: [MessageID: RowDetails] = [:]) -> Batch {
        Batch(known: entries.withLock { $0 }, day: day, details: details)
    }

    func store(_ batch: Batch, limit: Int) {
        guard !batch.fresh.isEmpty else { return }
        entries.withLock { entries in
            // Rows of deleted messages would pile up: start over when the cache outgrows the library.
            if entries.count + batch.fresh.count > limit { entries = [:] }
            entries.merge(batch.fresh) { _, new in new }
        }
    }

    final class Batch {
        private let known: [Key: Entry]
        fileprivate var fresh: [Key: Entry] = [:]
        let day: Int64
        private let details: [MessageID: RowDetails]
        /// The bytes of every row handed out so far: most of a long list's page.
        private(set) var bytesServed = 0

        fileprivate init(known: [Key: Entry], day: Int64, details: [MessageID: RowDetails]) {
            self.known = known
            self.day = day
            self.details = details
        }

        /// The mail details of message `id`, if it arrived over SMTP.
        func details(of id: MessageID) -> RowDetails? { details[id] }

        /// The row for `message` shown as `variant`, rendered by `make` only when not cached.
        func row(_ message: Message, _ variant: Variant, make: () -> Node) -> Node {
            let key = Key(id: message.id, variant: variant)
            let details = details[message.id]
            if let entry = known[key], entry.day == day, entry.message == message, entry.details == details {
                bytesServed += entry.html.bytes.count
                return .rendered(entry.html)
            }
            let html = RenderedHTML(make())
            fresh[key] = Entry(message: message, details: details, day: day, html: html)
            bytesServed += html.bytes.count
            return .rendered(html)
        }
    }
}

extension MailroomApp {
    /// A batch of rows for a page of `messages`, with their mail details read in one statement.
    func rowBatch(for messages: [Message], day: Int64) throws(HTTPError) -> RowCache.Batch {
        let ids = messages.map(\.id)
        let details = ids.isEmpty ? [:] : try reading { reader throws(StoreError) in try reader.rowDetails(of: ids) }
        return rowCache.batch(day: day, details: details)
    }
}
