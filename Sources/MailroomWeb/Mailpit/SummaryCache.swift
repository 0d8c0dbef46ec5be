import HTTP
import MailroomCore
import MailroomStore
import Synchronization

/// Rows of Mailpit's lists written earlier, reused while the message and its mail stay the
/// same: a client polls the same newest rows again and again, so a list answered afresh costs
/// its read and a copy of each row's bytes, as a page of the web list costs its rows.
final class SummaryCache: Sendable {
    private final class Entry: Sendable {
        let message: Message
        let mail: MailSummary?
        let json: JSON

        init(message: Message, mail: MailSummary?, json: JSON) {
            self.message = message
            self.mail = mail
            self.json = json
        }
    }

    private let entries = Mutex<[MessageID: Entry]>([:])
    /// More rows than this and the cache starts over: rows of deleted mail would pile up.
    private let limit: Int

    init(limit: Int = 20_000) {
        self.limit = limit
    }

    /// Each of `rows` as a summary, written now only when not kept as it is.
    func summaries(_ rows: [Message], mail: [MessageID: MailSummary]) -> [JSON] {
        let known = entries.withLock { $0 }
        var fresh: [MessageID: Entry] = [:]
        let written = rows.map { message -> JSON in
            let details = mail[message.id]
            if let entry = known[message.id], entry.message == message, entry.mail == details { return entry.json }
            let json = JSON.written(MailpitJSON.summary(message, details).bytes)
            fresh[message.id] = Entry(message: message, mail: details, json: json)
            return json
        }
        if !fresh.isEmpty {
            entries.withLock { entries in
                if entries.count + fresh.count > limit { entries = [:] }
                entries.merge(fresh) { _, new in new }
            }
        }
        return written
    }
}
