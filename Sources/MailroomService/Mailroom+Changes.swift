import MailroomCore
import MailroomStore

/// The revision at which each mailbox last changed, as far as commits said which they changed.
struct MailboxRevisions: Sendable {
    /// The last commit that did not say which mailboxes it changed (so may have changed any).
    var everything: Int64
    var each: [MailboxID: Int64] = [:]
    /// The last commit noted here: the store's revision may be ahead for a moment, until its
    /// observers have run.
    var latest: Int64

    init(everything: Int64) {
        self.everything = everything
        self.latest = everything
    }

    func revision(of box: MailboxID) -> Int64 {
        max(everything, each[box] ?? 0)
    }

    mutating func committed(_ revision: Int64, touching boxes: Set<MailboxID>?) {
        latest = max(latest, revision)
        guard let boxes else {
            everything = revision
            each = [:]
            return
        }
        for box in boxes { each[box] = revision }
    }
}

/// A cache that `Mailroom.dropStaleValues` reaches, for as long as it exists.
struct KeptValues: Sendable {
    weak var values: (any MailboxValues)?
}

extension Mailroom {
    /// The revision at which `box` last changed: its rows, order and counts are as they were
    /// then for as long as this stays the same.
    public func revision(of box: MailboxID) -> Int64 {
        mailboxRevisions.withLock { $0.revision(of: box) }
    }

    /// `revision(of:)`, and the last commit it takes into account: a value kept for `box` at
    /// that revision is current as of every commit up to `through`.
    public func revisionNoted(of box: MailboxID) -> (revision: Int64, through: Int64) {
        mailboxRevisions.withLock { ($0.revision(of: box), $0.latest) }
    }

    /// From now on, `values` lets go of what a changed mailbox's revision made stale whenever
    /// `dropStaleValues` runs. Held weakly: a door's caches go with the door.
    public func dropsStale(_ values: some MailboxValues) {
        keptValues.withLock { $0.append(KeptValues(values: values)) }
    }

    /// Has every cache kept per mailbox revision let go of what no lookup can match again: run
    /// once a second (before unused memory is handed back), not on each commit.
    public func dropStaleValues() {
        let caches = keptValues.withLock { kept -> [any MailboxValues] in
            kept.removeAll { $0.values == nil }
            return kept.compactMap(\.values)
        }
        let revisions = mailboxRevisions.withLock { $0 }
        for cache in caches { cache.dropStale(current: revisions.revision(of:)) }
    }

    /// After each durable commit, on the committing thread (under the store's write lock): notes
    /// which mailboxes changed, wakes waiters and tells the lists. The counts are read only
    /// while some list is listening; an event kept for a client that resumes later says only
    /// its revision (the list asks for itself again either way).
    func committed(_ revision: Int64) {
        let touched = pendingTouch.withLock { pending -> Set<MailboxID>? in
            defer { pending = nil }
            guard let pending, pending.stamp == revision else { return nil }
            return pending.mailboxes
        }
        mailboxRevisions.withLock { $0.committed(revision, touching: touched) }
        commitWatch.committed()
        let listening = metrics.eventClients.load(ordering: .relaxed) > 0
        let counts = listening ? ((try? mailboxes()) ?? []) : nil
        events.publish(ServerEvent(id: revision, name: "change", data: describeChange(revision, counts)))
    }
}
