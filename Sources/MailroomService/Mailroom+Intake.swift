import Glibc
import MailroomCore
import MailroomMail
import MailroomStore

extension Mailroom {
    /// Stores a message that arrived over SMTP, without waiting: parsed here, on the calling
    /// thread (GMime's objects never cross threads), then routed and saved in the next group
    /// commit beside the posts and other mail waiting for it. `finish` is told the outcome on
    /// the committing thread once the message is durable (the ids of its copies), or could not
    /// be stored.
    public func receiveMail(
        _ raw: [UInt8], from sender: String, to recipients: [String], peer: String,
        then finish: @escaping @Sendable (Result<[MessageID], ServiceError>) -> Void
    ) {
        // Announced before parsing, so a commit about to start waits a moment for this message.
        commits.expect()
        var mail = Self.incoming(raw, from: sender, to: recipients, peer: peer)
        // Compressed here too, in parallel with other sessions, not on the one writer, and its
        // text made ready for the indexes.
        store.packAhead(&mail, routedBy: recipients)
        mail.prepareText()
        let tagging = self.tagging.withLock { $0 }
        let relay = self.relay.withLock { $0 }.flatMap { $0.relayAll || $0.relayMatching != nil ? $0 : nil }
        let webhooks = self.webhooks.withLock { $0 }
        mail.tags = tagging.tags(of: mail, recipients: recipients)
        let time = now()
        let outcome = Outcome()
        // Without a savepoint: storing a message is never refused, and when it fails the batch
        // is not committed and every message in it is refused, to be sent again.
        let entry = GroupCommit.Entry(command: { transaction in
            do throws(StoreError) {
                let boxes = try transaction.route(recipients)
                // Only these mailboxes change: the others' cached pages stay.
                outcome.entry?.touched = Set(boxes.isEmpty ? [.inbox] : boxes)
                let ids = try transaction.addMail(mail, to: boxes, at: time)
                let copies = Array(zip(ids, boxes.isEmpty ? [.inbox] : boxes))
                let ruled = try Self.applyRules(tagging.rules, to: copies, transaction)
                if let webhooks {
                    try Self.announce(copies, mail: mail, tags: Tag.unique(mail.tags + ruled), webhooks, at: time, transaction)
                    outcome.announced = true
                }
                if let relay, try Self.passOn(copies, to: recipients, relay, at: time, transaction) { outcome.relayed = true }
                outcome.ids = ids
                return true
            } catch {
                // Abandons the batch: every message in it is refused, and none is kept.
                let failure = ServiceError(error, doing: ServiceError.changing)
                outcome.failure = failure
                throw failure
            }
        }, whenDone: { entry in
            if let failure = entry.saveFailure ?? outcome.failure {
                finish(.failure(failure))
            } else if let ids = outcome.ids {
                if outcome.relayed { self.wakeOutbound() }
                if outcome.announced { self.webhookWake.withLock { $0 }?() }
                finish(.success(ids))
            } else {
                finish(.failure(.unavailable("The message was not stored.")))
            }
        })
        outcome.entry = entry
        commits.submitDetached(entry, expected: true) { [self] batch in commitBatch(batch) }
    }

    /// Gives each new copy the tags of the rules its mailbox's search finds it by, in the
    /// commit that stores it.
    /// The tags the rules gave.
    @discardableResult
    static func applyRules(_ rules: [TagRule], to copies: [(MessageID, MailboxID)], _ transaction: Transaction) throws(StoreError) -> [String] {
        var given: [String] = []
        for (id, box) in copies {
            for rule in rules where try transaction.matches(rule.query, id: id, in: box) {
                try transaction.addTags(rule.tags, toMessages: [id])
                given += rule.tags
            }
        }
        return given
    }

    /// `--relay-all` and `--relay-matching`: queues the message, once however many mailboxes
    /// it went to, to those of its recipients the allow-list lets through. Whether it was.
    static func passOn(
        _ copies: [(MessageID, MailboxID)], to recipients: [String], _ policy: RelayPolicy, at time: Int64, _ transaction: Transaction
    ) throws(StoreError) -> Bool {
        let allowed = recipients.filter(policy.allows)
        guard !allowed.isEmpty else { return false }
        for (id, box) in copies {
            if let query = policy.relayMatching, !policy.relayAll, try !transaction.matches(query, id: id, in: box) { continue }
            return try queue(id, to: allowed, cause: "relay", policy: policy, at: time, transaction)
        }
        return false
    }

    /// What became of one message in its batch: written by the leading thread before the
    /// batch's `whenDone`, read in it.
    private final class Outcome: @unchecked Sendable {
        var ids: [MessageID]?
        var failure: ServiceError?
        /// Queued to be passed on (`--relay-all`, `--relay-matching`).
        var relayed = false
        /// Webhook calls queued.
        var announced = false
        weak var entry: GroupCommit.Entry?
    }

    /// What the store keeps of a message. Mail GMime cannot read at all is kept too, raw, with
    /// its bytes as its text: nothing that was accepted is lost.
    static func incoming(_ raw: [UInt8], from sender: String, to recipients: [String], peer: String) -> IncomingMail {
        guard let parsed = MailParser.parse(raw) else {
            return IncomingMail(
                subject: "(unreadable message)", sender: sender, text: String(decoding: raw.prefix(1 << 20), as: UTF8.self),
                html: nil, envelopeFrom: sender, envelopeTo: recipients, fromHeader: sender, toHeader: "", ccHeader: "",
                sentAt: nil, messageID: nil, attachments: [], peer: peer, raw: raw)
        }
        let attachments = parsed.attachments.enumerated().map { index, attachment in
            StoredAttachment(part: index, name: attachment.name, type: attachment.type, size: attachment.size,
                             contentID: attachment.contentID, place: attachment.place.map {
                                 StoredAttachment.Place(start: $0.start, length: $0.length, encoding: $0.encoding.rawValue)
                             })
        }
        var mail = IncomingMail(
            subject: parsed.subject, sender: parsed.sender.isEmpty ? sender : parsed.sender, text: lines(parsed.text),
            html: parsed.html, envelopeFrom: sender, envelopeTo: recipients, fromHeader: listed(parsed.from),
            toHeader: listed(parsed.to), ccHeader: listed(parsed.cc), sentAt: parsed.date, messageID: parsed.messageID,
            attachments: attachments, peer: peer, raw: raw)
        mail.tags = Tag.list(parsed.tagsHeader ?? "")
        return mail
    }

    /// Text with its lines ended by LF alone (CRLF and a lone CR become LF), as the page splits
    /// it; the line ends at its end dropped. One pass, with memchr finding each CR: the text of
    /// a 100 KB mail is made here, on the importing thread that has no time to spare.
    static func lines(_ given: String) -> String {
        var text = given
        return text.withUTF8 { bytes -> String in
            var end = bytes.count
            while end > 0 && (bytes[end - 1] == 10 || bytes[end - 1] == 13) { end -= 1 }
            guard let base = bytes.baseAddress, end > 0 else { return "" }
            guard memchr(base, 13, end) != nil else {
                // Nothing to change: the text as it came (no copy of 100 KB).
                if end == bytes.count { return given }
                return String(decoding: UnsafeBufferPointer(start: base, count: end), as: UTF8.self)
            }
            return String(unsafeUninitializedCapacity: end) { out in
                var written = 0
                var start = 0
                while start < end {
                    let found = memchr(base + start, 13, end - start)
                    let stop = found.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? end
                    let span = UnsafeBufferPointer(start: base + start, count: stop - start)
                    _ = UnsafeMutableBufferPointer(rebasing: out[written...]).initialize(fromContentsOf: span)
                    written += span.count
                    guard stop < end else { break }
                    out[written] = 10
                    written += 1
                    start = stop + 1
                    if start < end && base[start] == 10 { start += 1 }
                }
                return written
            }
        }
    }

    /// Addresses as people write them: `Ann Example <ann@example.test>, bob@example.test`.
    static func listed(_ addresses: [Address]) -> String {
        addresses.map { $0.name.isEmpty ? $0.address : "\($0.name) <\($0.address)>" }.joined(separator: ", ")
    }
}
