import MailroomStore

/// `--max-messages` and `--max-age`: what to keep. The oldest unflagged messages go first.
public struct RetentionPolicy: Sendable {
    public var maxMessages: Int?
    public var maxAgeSeconds: Int64?

    public init(maxMessages: Int?, maxAgeSeconds: Int64?) {
        self.maxMessages = maxMessages
        self.maxAgeSeconds = maxAgeSeconds
    }

    public var isActive: Bool { maxMessages != nil || maxAgeSeconds != nil }

    /// Messages deleted per transaction: small, so posts and mail waiting on the write lock
    /// never wait long behind retention.
    static let batch = 500
}

extension Mailroom {
    /// Deletes what `policy` says is too many or too old, a small transaction at a time, each
    /// in the group commit like any post. How many messages went (for the log).
    public func enforce(_ policy: RetentionPolicy) throws(ServiceError) -> (overCount: Int, overAge: Int) {
        var overAge = 0
        if let age = policy.maxAgeSeconds {
            let cutoff = now() - age
            while true {
                let gone = try performing { transaction throws(ServiceError) in
                    try storing { () throws(StoreError) in try transaction.expireOldest(RetentionPolicy.batch, arrivedBefore: cutoff) }
                }
                overAge += gone
                if gone < RetentionPolicy.batch { break }
            }
        }
        var overCount = 0
        if let limit = policy.maxMessages {
            while true {
                let gone = try performing { transaction throws(ServiceError) in
                    try storing { () throws(StoreError) in
                        let excess = try transaction.totalMessages() - limit
                        return try transaction.expireOldest(min(excess, RetentionPolicy.batch))
                    }
                }
                overCount += gone
                if gone < RetentionPolicy.batch { break }
            }
        }
        return (overCount, overAge)
    }
}
