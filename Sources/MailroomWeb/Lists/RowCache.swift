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

        /// Whether this row still shows `message` as it is now, compared where both are kept: this
        /// runs for every row of a page.
        func shows(_ message: UnsafePointer<Message>, details: borrowing RowDetails?, day: Int64) -> Bool {
            self.day == day && self.message == message.pointee && self.details == details
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
        /// The bytes of every list of rows made so far: most of a long list's page.
        private(set) var bytesServed = 0

        fileprivate init(known: [Key: Entry], day: Int64, details: [MessageID: RowDetails]) {
            self.known = known
            self.day = day
            self.details = details
        }

        /// The mail details of message `id`, if it arrived over SMTP.
        func details(of id: MessageID) -> RowDetails? { details[id] }

        /// The rows of `messages` as one node: each from the cache when it still shows its
        /// message as `variant(offset, id)` says, else rendered by `make(offset)` and kept. A row
        /// whose variant is nil shows a moment only (a confirmation): rendered, never kept.
        func rows(
            of messages: [Message], variant: (_ offset: Int, _ id: MessageID) -> Variant?, make: (Int) -> Node
        ) -> Node {
            var list = RowList(known: known, capacity: messages.count)
            // Through a buffer pointer, so each message is lent rather than copied: the slice is
            // shared by every thread showing it, and copying a message counts references in it.
            messages.withUnsafeBufferPointer { messages in
                guard let base = messages.baseAddress else { return }
                for offset in messages.indices {
                    guard let variant = variant(offset, messages[offset].id) else {
                        list.append(RenderedHTML(make(offset)))
                        continue
                    }
                    if !appendCached(base + offset, variant, to: &list) {
                        list.append(keep(make(offset), for: messages[offset], variant))
                    }
                }
            }
            bytesServed += list.count
            return .rendered(from: list)
        }

        /// Appends the row for `message` shown as `variant` to `list`, if it was rendered earlier
        /// and still shows the message as it is; false if it must be rendered now.
        private func appendCached(_ message: UnsafePointer<Message>, _ variant: Variant, to list: inout RowList) -> Bool {
            // Both looked at where they are kept: a copy of either would count references in it,
            // and the entries and the page's messages are shared by every thread rendering pages.
            guard let index = known.index(forKey: Key(id: message.pointee.id, variant: variant)),
                  known.values[index].shows(message, details: details[message.pointee.id], day: day) else { return false }
            list.appendKept(at: index)
            return true
        }

        /// `row`, rendered for `message` shown as `variant`, kept for the pages after this one.
        private func keep(_ row: Node, for message: Message, _ variant: Variant) -> RenderedHTML {
            let html = RenderedHTML(row)
            fresh[Key(id: message.id, variant: variant)] = Entry(message: message, details: details[message.id], day: day, html: html)
            return html
        }
    }
}

/// A page's rows, each either where the row cache keeps it or rendered for this page, written
/// into the page when it is rendered: a cached row's bytes are copied once, into the page.
struct RowList: RenderedSource {
    private enum Piece {
        case kept(Dictionary<RowCache.Key, RowCache.Entry>.Index)
        case rendered(RenderedHTML)
    }

    /// The cache as the page's batch saw it, which keeps every row listed here alive.
    private let known: [RowCache.Key: RowCache.Entry]
    private var pieces: [Piece] = []
    private(set) var count = 0

    init(known: [RowCache.Key: RowCache.Entry], capacity: Int) {
        self.known = known
        pieces.reserveCapacity(capacity)
    }

    /// The row the cache keeps at `index`.
    mutating func appendKept(at index: Dictionary<RowCache.Key, RowCache.Entry>.Index) {
        pieces.append(.kept(index))
        count += known.values[index].html.bytes.count
    }

    /// A row rendered for this page.
    mutating func append(_ html: RenderedHTML) {
        pieces.append(.rendered(html))
        count += html.bytes.count
    }

    func write(to writer: inout RenderedWriter) {
        for piece in pieces {
            switch piece {
            case .kept(let index): known.values[index].html.write(to: &writer)
            case .rendered(let html): html.write(to: &writer)
            }
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
