#if canImport(Glibc)
import Glibc
#endif
import MailroomCore
import MailroomStore
import Synchronization

/// Runs inside every commit, just before it is made durable; throwing abandons the whole batch.
/// Tests use it to make a commit fail.
public typealias BeforeCommit = @Sendable () throws -> Void

/// What a change event says, from its revision and, while some list is listening, every
/// mailbox's counts; the door that serves the feed chooses the words (JSON for the web).
public typealias ChangeDescription = @Sendable (_ revision: Int64, _ mailboxes: [MailboxSummary]?) -> String

/// The application over the mail store: every door (the web, SMTP, the command line) receives
/// mail, runs commands and reads through it, and hears of changes from it.
public final class Mailroom: Sendable {
    public let store: Store
    public let now: @Sendable () -> Int64
    let beforeCommit: BeforeCommit?
    /// What the server and the service count, for `/metrics`.
    public let metrics = Metrics()
    /// Announces each commit to the live lists; the server writes the events.
    public let events: EventHub
    /// Wakes callers waiting for the next commit.
    public let commitWatch = CommitWatch()
    let commits: GroupCommit
    let describeChange: ChangeDescription
    /// Which revision last changed each mailbox, for caches kept per mailbox.
    let mailboxRevisions: Mutex<MailboxRevisions>
    /// What the batch being committed changed, handed from the batch to the commit observer.
    let pendingTouch = Mutex<(stamp: Int64, mailboxes: Set<MailboxID>)?>(nil)
    /// The mailboxes and their counts as of a revision: every page names a mailbox, and asking
    /// SQLite each time would cost more than answering a cached page.
    private let directory = Mutex<(revision: Int64, mailboxes: [MailboxSummary])?>(nil)
    /// What may go out and what goes out on its own (`useRelay`); nil: nothing.
    let relay = Mutex<RelayPolicy?>(nil)
    /// Where news of arriving mail goes (`useWebhooks`); nil: nowhere.
    let webhooks = Mutex<WebhookPolicy?>(nil)
    /// Tells the webhook queue that calls were queued.
    let webhookWake = Mutex<Wakeup?>(nil)
    /// Tells the outbound queue that mail was queued.
    let outboundWake = Mutex<Wakeup?>(nil)
    /// How many messages each recent search matches, per mailbox revision (`search`).
    let searchCounts = RevisionCache<SearchQuery, Int>(maxEntries: 1_024)
    /// The doors' caches of per-mailbox values (`dropsStale`), held weakly.
    let keptValues = Mutex<[KeptValues]>([])
    /// How arriving mail is tagged; set once before the doors open (`useTagging`).
    let tagging = Mutex(Tagging())
    /// A file this service made for itself (the in-memory convenience), removed with it.
    private let ownedFile: String?

    public convenience init(
        store: Store, now: @escaping @Sendable () -> Int64, beforeCommit: BeforeCommit? = nil,
        describeChange: @escaping ChangeDescription = { revision, _ in "{\"revision\":\(revision)}" }
    ) {
        self.init(store: store, ownedFile: nil, now: now, beforeCommit: beforeCommit, describeChange: describeChange)
    }

    private init(
        store: Store, ownedFile: String?, now: @escaping @Sendable () -> Int64, beforeCommit: BeforeCommit?,
        describeChange: @escaping ChangeDescription
    ) {
        self.store = store
        let metrics = metrics
        self.commits = GroupCommit(senders: { metrics.smtpOpenSessions.load(ordering: .relaxed) })
        self.ownedFile = ownedFile
        self.now = now
        self.beforeCommit = beforeCommit
        self.describeChange = describeChange
        self.events = EventHub(lastID: store.revision)
        self.mailboxRevisions = Mutex(MailboxRevisions(everything: store.revision))
        store.observeCommits { [weak self] revision in self?.committed(revision) }
        dropsStale(searchCounts)
    }

    /// A service over a new store in a temporary file that holds `library`; the file goes when
    /// the service does. For tests and tools.
    public convenience init(
        library: Library, now: @escaping @Sendable () -> Int64, beforeCommit: BeforeCommit? = nil,
        describeChange: @escaping ChangeDescription = { revision, _ in "{\"revision\":\(revision)}" }
    ) throws(ServiceError) {
        let path = "/tmp/mailroom-app-\(UInt64.random(in: 0...UInt64.max)).sqlite"
        let store = try storing(doing: "Mailroom could not make its database.") { () throws(StoreError) in try Store(path: path) }
        do {
            try store.write { transaction in try transaction.replaceAll(with: library) }
        } catch {
            throw ServiceError(error as? StoreError ?? .failed("\(error)"), doing: "Mailroom could not fill its database.")
        }
        self.init(store: store, ownedFile: path, now: now, beforeCommit: beforeCommit, describeChange: describeChange)
    }

    deinit {
        guard let ownedFile else { return }
        store.close()
        for suffix in ["", "-wal", "-shm"] { _ = unlink(ownedFile + suffix) }
    }

    /// Tags arriving mail as `tagging` says from now on.
    public func useTagging(_ tagging: Tagging) {
        self.tagging.withLock { $0 = tagging }
    }

    /// The whole library as it is at this moment: every row read (for tests of small stores).
    public var library: Library { (try? store.library()) ?? Library() }

    /// Every mailbox with its counts, as of the last commit.
    public func mailboxes() throws(ServiceError) -> [MailboxSummary] {
        // Loaded first: what is read below is at least this revision, so it may stand for it.
        let revision = store.revision
        if let known = directory.withLock({ $0 }), known.revision == revision { return known.mailboxes }
        let mailboxes = try read { reader throws(StoreError) in try reader.mailboxes() }
        directory.withLock { known in
            if (known?.revision ?? -1) < revision { known = (revision, mailboxes) }
        }
        return mailboxes
    }

    /// Reads from one snapshot of the store; a failure says the database could not be read.
    public func read<Result>(_ body: (Reader) throws(StoreError) -> Result) throws(ServiceError) -> Result {
        try storing(doing: ServiceError.reading) { () throws(StoreError) in try store.read(body) }
    }
}
