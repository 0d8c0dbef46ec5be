import Synchronization

/// What a running Mailroom counts for `/metrics`: the server side (responses, SMTP sessions and
/// messages, live-list listeners) and the application side (posts and commits). One instance is
/// shared by the server and the app; every counter only goes up, except the gauges.
public final class Metrics: Sendable {
    private let statuses = Mutex<[Int: Int]>([:])
    /// The commonest statuses, counted without a lock (two loops answer at once).
    private let oks = Atomic<Int>(0)
    private let redirects = Atomic<Int>(0)
    private let notModified = Atomic<Int>(0)
    public let posts = Atomic<Int>(0)
    /// GETs answered again from a loop's `RepeatedAnswers`, without the application.
    public let repeatedAnswers = Atomic<Int>(0)
    public let commits = Atomic<Int>(0)
    /// Changes (posts and messages) in all commits so far, and how they fell into batches.
    public let committedChanges = Atomic<Int>(0)
    private let batchSizes = Mutex<[Int]>(Array(repeating: 0, count: Metrics.batchBounds.count + 1))
    public let smtpSessions = Atomic<Int>(0)
    public let smtpSessionsRefused = Atomic<Int>(0)
    public let smtpOpenSessions = Atomic<Int>(0)
    public let smtpMessagesAccepted = Atomic<Int>(0)
    public let smtpMessagesRefused = Atomic<Int>(0)
    /// Recipients of outbound mail the relay took, failed for good, and deferred (each try).
    public let outboundSent = Atomic<Int>(0)
    public let outboundFailed = Atomic<Int>(0)
    public let outboundDeferred = Atomic<Int>(0)
    /// Webhook calls the target took, calls to be tried again, and calls failed for good.
    public let webhooksDelivered = Atomic<Int>(0)
    public let webhooksRetried = Atomic<Int>(0)
    public let webhooksFailed = Atomic<Int>(0)
    /// Clients following a live list right now.
    public let eventClients = Atomic<Int>(0)

    /// The upper bounds of the commit-size histogram's buckets (and then +Inf).
    public static let batchBounds = [1, 2, 4, 8, 16, 32, 64, 128]

    public init() {}

    public func countResponse(status: Int) {
        switch status {
        case 200: oks.wrappingAdd(1, ordering: .relaxed)
        case 303: redirects.wrappingAdd(1, ordering: .relaxed)
        case 304: notModified.wrappingAdd(1, ordering: .relaxed)
        default: statuses.withLock { $0[status, default: 0] += 1 }
        }
    }

    /// Responses sent so far, by status code.
    public var responses: [Int: Int] {
        var counts = statuses.withLock { $0 }
        let common = [
            (200, oks.load(ordering: .relaxed)), (303, redirects.load(ordering: .relaxed)),
            (304, notModified.load(ordering: .relaxed)),
        ]
        for (status, count) in common where count > 0 { counts[status] = count }
        return counts
    }

    public func countCommit(changes: Int) {
        commits.wrappingAdd(1, ordering: .relaxed)
        committedChanges.wrappingAdd(changes, ordering: .relaxed)
        let bucket = Self.batchBounds.firstIndex { changes <= $0 } ?? Self.batchBounds.count
        batchSizes.withLock { $0[bucket] += 1 }
    }

    /// Commits by size, per bucket (not cumulative): one count per bound, then the rest.
    public var commitSizes: [Int] { batchSizes.withLock { $0 } }
}
