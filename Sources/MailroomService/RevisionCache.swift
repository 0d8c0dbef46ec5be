import MailroomCore
import Synchronization

/// Values worked out from one mailbox, kept while that mailbox stays at the same revision (see
/// `Mailroom.revision(of:)`): mail arriving in one mailbox leaves every other mailbox's values.
///
/// Bounded in entries and in cost (a page's bytes, say) over all mailboxes together; past
/// either bound it starts empty again.
///
/// Its methods are inlinable: a generic class used from another module otherwise runs
/// unspecialized, looking up its keys' and values' type metadata on every call, which cost the
/// web door's kept pages several times what the lookup itself costs.
public final class RevisionCache<Key: Hashable & Sendable, Value: Sendable>: MailboxValues {
    @usableFromInline
    struct Shelf {
        @usableFromInline var revision: Int64
        @usableFromInline var entries: [Key: Value] = [:]
        @usableFromInline var cost = 0

        @usableFromInline
        init(revision: Int64) {
            self.revision = revision
        }
    }

    @usableFromInline
    struct Shelves {
        @usableFromInline var byMailbox: [MailboxID: Shelf] = [:]
        @usableFromInline var count = 0
        @usableFromInline var cost = 0

        @usableFromInline
        init() {}
    }

    @usableFromInline let state = Mutex(Shelves())
    @usableFromInline let maxEntries: Int
    @usableFromInline let maxCost: Int
    /// Lookups answered from the cache, for tests and measurements.
    public let hits = Atomic<Int>(0)

    public init(maxEntries: Int = 256, maxCost: Int = .max) {
        self.maxEntries = maxEntries
        self.maxCost = maxCost
    }

    /// The value kept for `key` in `box`, if `box` is still at `revision`.
    @inlinable
    public func value(_ key: Key, in box: MailboxID, revision: Int64) -> Value? {
        let found = state.withLock { state -> Value? in
            guard let shelf = state.byMailbox[box], shelf.revision == revision else { return nil }
            return shelf.entries[key]
        }
        if found != nil { hits.wrappingAdd(1, ordering: .relaxed) }
        return found
    }

    /// What is kept now, over every mailbox: for tests and measurements.
    public var held: (entries: Int, cost: Int) {
        state.withLock { ($0.count, $0.cost) }
    }

    /// Lets go of the values of each mailbox that has changed since they were kept: no lookup
    /// can match them again, and otherwise they stay until that mailbox's next value is stored
    /// (after a change to a mailbox nobody looks at, its last pages would stay for good).
    /// `current` is asked outside the cache's lock.
    public func dropStale(current: (MailboxID) -> Int64) {
        let boxes = state.withLock { state in state.byMailbox.map { ($0.key, $0.value.revision) } }
        let stale = boxes.filter { box, revision in revision < current(box) }
        guard !stale.isEmpty else { return }
        state.withLock { state in
            for (box, revision) in stale {
                // Kept again meanwhile, at a newer revision: that shelf is current.
                guard let shelf = state.byMailbox[box], shelf.revision == revision else { continue }
                state.byMailbox[box] = nil
                state.count -= shelf.entries.count
                state.cost -= shelf.cost
            }
        }
    }

    /// Keeps `value` for `key` in `box` at `revision`, the revision read before the value was
    /// worked out (so the value is at least that new); `cost` counts against `maxCost`.
    @inlinable
    public func store(_ value: Value, for key: Key, in box: MailboxID, revision: Int64, cost: Int = 0) {
        guard cost <= maxCost else { return }
        state.withLock { state in
            // Taken out while it changes, so its entries are not shared and adding one does
            // not copy them all.
            var shelf = state.byMailbox.removeValue(forKey: box) ?? Shelf(revision: revision)
            if shelf.revision != revision {
                // An older revision's values can never be asked for again; a newer one's are not
                // ours to drop.
                guard revision > shelf.revision else {
                    state.byMailbox[box] = shelf
                    return
                }
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

/// Values kept per mailbox revision that can be let go once their mailbox changes: what the
/// service drops once a second, at rest (`Mailroom.dropStaleValues`).
public protocol MailboxValues: AnyObject, Sendable {
    func dropStale(current: (MailboxID) -> Int64)
}
