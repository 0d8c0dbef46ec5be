import CivilDate
import MailroomCore
import MailroomMail
import MailroomStore

/// Release and forward: mail sent on through the relay, queued durably before anyone is told
/// it is on its way. Every address is checked against the allow-list first.
extension Mailroom {
    /// The most messages one release takes: each is copied into the queue as it will leave.
    public static let maximumRelease = 1_000

    /// Queues messages `ids` (wherever they are) to the addresses in `to`; an id not found
    /// counts as gone. Nothing is queued when any address is refused.
    public func release(_ ids: [MessageID], to text: String, cause: String) throws(ServiceError) -> Tally {
        let policy = try relayPolicy()
        let recipients = try policy.recipients(in: text)
        guard ids.count <= Self.maximumRelease else {
            throw .tooLarge("At most \(Self.maximumRelease) messages can be released at once.")
        }
        let time = now()
        let tally = try performing { transaction throws(ServiceError) -> Tally in
            try storing { () throws(StoreError) -> Tally in
                var tally = Tally(changed: 0, gone: 0)
                for id in ids {
                    if try Self.queue(id, to: recipients, cause: cause, policy: policy, at: time, transaction) {
                        tally.changed += 1
                    } else {
                        tally.gone += 1
                    }
                }
                return tally
            }
        }
        wakeOutbound()
        return tally
    }

    /// Queues what `search` finds in `box` (everything there, when empty) among the messages
    /// there at `revision`, to the addresses in `to`.
    public func release(matching search: String, in box: MailboxID, asOf revision: Int64, to text: String, cause: String) throws(ServiceError) -> Tally {
        var query: SearchQuery?
        if !search.allSatisfy(\.isWhitespace) {
            do throws(SearchQueryError) {
                query = try SearchQuery(search)
            } catch {
                throw .badInput("The search could not be run, so nothing was released: \(error.message)")
            }
        }
        let ids = try read { reader throws(StoreError) -> [MessageID] in
            if let query, !query.isEmpty { return try reader.ids(matching: query, in: box, enteredBy: revision) }
            return try reader.ids(in: box, enteredBy: revision)
        }
        return try release(ids, to: text, cause: cause)
    }

    /// The message's mail going out and gone out, oldest first.
    public func outbound(of id: MessageID) throws(ServiceError) -> [OutboundRow] {
        try read { reader throws(StoreError) in try reader.outbound(of: id) }
    }

    /// Sends on with `policy` from now on (nil: nothing goes out).
    public func useRelay(_ policy: RelayPolicy?) {
        relay.withLock { $0 = policy }
    }

    /// The relay's rules, or a refusal that says how to configure one.
    public func currentRelay() throws(ServiceError) -> RelayPolicy {
        try relayPolicy()
    }

    func relayPolicy() throws(ServiceError) -> RelayPolicy {
        guard let policy = relay.withLock({ $0 }) else {
            throw .refused("Mailroom has no relay configured, so it sends no mail out: start it with --relay-host and --relay-allow-to.")
        }
        return policy
    }

    /// Queues message `id` as it will leave: its raw mail (or a posted message written as
    /// mail) under a `Received:` line of Mailroom's own, from its envelope sender. False when
    /// the message is gone.
    static func queue(
        _ id: MessageID, to recipients: [String], cause: String, policy: RelayPolicy, at time: Int64, _ transaction: Transaction
    ) throws(StoreError) -> Bool {
        let raw: [UInt8]
        let sender: String
        if let details = try transaction.mailDetails(id), let bytes = try transaction.rawMail(details.raw) {
            raw = bytes
            sender = details.envelopeFrom
        } else if let found = try transaction.message(id) {
            let message = found.message
            raw = PostedMail.message(subject: message.subject, author: message.author, body: message.body,
                                     date: message.createdAt, id: message.id.rawValue)
            sender = ""
        } else {
            return false
        }
        let received = "Received: by \(policy.hostName) (Mailroom) id \(id.rawValue);\r\n\t\(UTCTime(secondsSinceEpoch: time).mailDate)\r\n"
        try transaction.queueOutbound(Array(received.utf8) + raw, from: sender, to: recipients, message: id, cause: cause, at: time)
        return true
    }

    /// Lets the queue know there is mail to send.
    func wakeOutbound() {
        outboundWake.withLock { $0 }?()
    }
}
