import MailroomCore
import Synchronization

/// The rows of list pages (a mailbox in its own order, not a search) read from the store, kept
/// while the store is at the same revision.
///
/// Many addresses show the same rows: edit mode, ticks, a notice, an open confirmation. Each of
/// them is rendered anew (from the row cache), but the rows are read from SQLite once per
/// revision. Bounded in pages; a change of revision empties it.
final class SliceCache: Sendable {
    struct Key: Hashable, Sendable {
        let mailbox: MailboxID
        let place: PagePlace
        let search: String
    }

    struct Entry: Sendable {
        let slice: ListSlice
        let mailboxes: [MailboxSummary]
    }

    private struct Slices {
        var revision: Int64 = -1
        var entries: [Key: Entry] = [:]
    }

    private let state = Mutex(Slices())
    private let limit: Int

    init(limit: Int = 256) {
        self.limit = limit
    }

    func entry(_ key: Key, revision: Int64) -> Entry? {
        state.withLock { $0.revision == revision ? $0.entries[key] : nil }
    }

    func store(_ entry: Entry, for key: Key, revision: Int64) {
        state.withLock { state in
            if state.revision != revision {
                // A newer revision's slices are not ours to drop.
                guard revision > state.revision else { return }
                state = Slices(revision: revision)
            }
            if state.entries.count >= limit { state.entries = [:] }
            state.entries[key] = entry
        }
    }
}
