import MailroomCore
import Synchronization

/// Values worked out from one mailbox, kept while that mailbox stays at the same revision (see
/// `Mailroom.revision(of:)`): mail arriving in one mailbox leaves every other mailbox's values.
///
/// Bounded in entries and in cost (a page's bytes, say) over all mailboxes together; past
/// either bound it starts empty again.
public final class RevisionCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Shelf {
        var revision: Int64
        var entries: [Key: Value] = [:]
        var cost = 0
    }

    private struct Shelves {
        var byMailbox: [MailboxID: Shelf] = [:]
        var count = 0
        var cost = 0
    }

    private let state = Mutex(Shelves())
    private let maxEntries: Int
    private let maxCost: Int
    /// Lookups answered from the cache, for tests and measurements.
    public let hits = Atomic<Int>(0)

    public init(maxEntries: Int = 256, maxCost: Int = .max) {
        self.maxEntries = maxEntries
        self.maxCost = maxCost
    }

    /// The value kept for `key` in `box`, if `box` is still at `revision`.
    public func value(_ key: Key, in box: MailboxID, revision: Int64) -> Value? {
        let found = state.withLock { state -> Value? in
            guard let shelf = state.byMailbox[box], shelf.revision == revision else { return nil }
            return shelf.entries[key]
        }
        if found != nil { hits.wrappingAdd(1, ordering: .relaxed) }
        return found
    }

    /// Keeps `value` for `key` in `box` at `revision`, the revision read before the value was
    /// worked out (so the value is at least that new); `cost` counts against `maxCost`.
    public func store(_ value: Value, for key: Key, in box: MailboxID, revision: Int64, cost: Int = 0) {
        guard cost <= maxCost else { return }
        state.withLock { state in
            var shelf = state.byMailbox[box] ?? Shelf(revision: revision)
            if shelf.revision != revision {
                // An older revision's values can never be asked for again; a newer one's are not
                // ours to drop.
                guard revision > shelf.revision else { return }
                state.count -= shelf.entries.count
                state.cost -= shelf.cost
                shelf = Shelf(revision: revision)
            }
            if state.count >= maxEntries || state.cost + cost > maxCost {
                state = Shelves()
                shelf = Shelf(revision: revision)
            }
            if shelf.entries.updateValue(value, forKey: key) == nil { state.count += 1 }
            shelf.cost += cost
            state.cost += cost
            state.byMailbox[box] = shelf
        }
    }
}
