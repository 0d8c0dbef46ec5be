#if canImport(Glibc)
import Glibc
#endif
import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// `/healthz` and `/metrics`: for a service manager, a load balancer and Prometheus.
extension MailroomApp {
    /// 200 when the database answers a read, 503 when it does not. Never behind the password:
    /// it says nothing but whether Mailroom works.
    func health() -> Response {
        do {
            let revision = try reading { reader throws(StoreError) in try reader.revision() }
            var response = Response(text: "ok\nrevision \(revision)\n")
            response.headers.set("Cache-Control", "no-store")
            return response
        } catch {
            var response = Response(status: .serviceUnavailable, text: "unavailable\n\(error.message)\n")
            response.headers.set("Cache-Control", "no-store")
            return response
        }
    }

    /// The counters in Prometheus's text format (version 0.0.4).
    func metricsPage() -> Response {
        var text = MetricsText()
        let responses = metrics.responses.sorted { $0.key < $1.key }
        text.family("mailroom_http_responses_total", "counter", "HTTP responses sent, by status code.")
        for (code, count) in responses { text.sample("mailroom_http_responses_total", ["code": "\(code)"], count) }
        let simple: [(name: String, type: String, help: String, value: Int)] = [
            ("mailroom_posts_total", "counter", "Form posts received.", metrics.posts.load(ordering: .relaxed)),
            ("mailroom_http_repeated_total", "counter",
             "GETs answered again with the bytes of the same request's last answer, while nothing they show had changed.",
             metrics.repeatedAnswers.load(ordering: .relaxed)),
            ("mailroom_commits_total", "counter", "Durable commits; each holds the posts and messages that arrived together.",
             metrics.commits.load(ordering: .relaxed)),
        ]
        for family in simple {
            text.family(family.name, family.type, family.help)
            text.sample(family.name, [:], family.value)
        }
        text.family("mailroom_commit_changes", "histogram", "Changes (posts and messages) per commit.")
        var cumulative = 0
        let sizes = metrics.commitSizes
        for (index, bound) in Metrics.batchBounds.enumerated() {
            cumulative += sizes[index]
            text.sample("mailroom_commit_changes_bucket", ["le": "\(bound)"], cumulative)
        }
        cumulative += sizes[Metrics.batchBounds.count]
        text.sample("mailroom_commit_changes_bucket", ["le": "+Inf"], cumulative)
        text.sample("mailroom_commit_changes_sum", [:], metrics.committedChanges.load(ordering: .relaxed))
        text.sample("mailroom_commit_changes_count", [:], cumulative)
        let smtp: [(name: String, type: String, help: String, value: Int)] = [
            ("mailroom_smtp_sessions_total", "counter", "SMTP sessions admitted.", metrics.smtpSessions.load(ordering: .relaxed)),
            ("mailroom_smtp_sessions_refused_total", "counter", "SMTP sessions turned away at the connection limit.",
             metrics.smtpSessionsRefused.load(ordering: .relaxed)),
            ("mailroom_smtp_sessions_open", "gauge", "SMTP sessions connected now.", metrics.smtpOpenSessions.load(ordering: .relaxed)),
            ("mailroom_smtp_messages_accepted_total", "counter", "Messages answered 250: stored durably.",
             metrics.smtpMessagesAccepted.load(ordering: .relaxed)),
            ("mailroom_smtp_messages_refused_total", "counter", "Messages refused for their size or not stored.",
             metrics.smtpMessagesRefused.load(ordering: .relaxed)),
            ("mailroom_event_clients", "gauge", "Clients following a live list now.", metrics.eventClients.load(ordering: .relaxed)),
            ("mailroom_outbound_sent_total", "counter", "Recipients of outbound mail the relay accepted.",
             metrics.outboundSent.load(ordering: .relaxed)),
            ("mailroom_outbound_deferred_total", "counter", "Tries of outbound mail deferred for a later try.",
             metrics.outboundDeferred.load(ordering: .relaxed)),
            ("mailroom_outbound_failed_total", "counter", "Recipients of outbound mail failed for good.",
             metrics.outboundFailed.load(ordering: .relaxed)),
            ("mailroom_webhooks_delivered_total", "counter", "Webhook calls the target answered 2xx.",
             metrics.webhooksDelivered.load(ordering: .relaxed)),
            ("mailroom_webhooks_retried_total", "counter", "Webhook calls queued to be tried again (a 5xx, a timeout, no connection).",
             metrics.webhooksRetried.load(ordering: .relaxed)),
            ("mailroom_webhooks_failed_total", "counter", "Webhook calls failed for good (a 4xx, or a day of tries).",
             metrics.webhooksFailed.load(ordering: .relaxed)),
        ]
        for family in smtp {
            text.family(family.name, family.type, family.help)
            text.sample(family.name, [:], family.value)
        }
        if let mailboxes = try? mailboxes() {
            text.family("mailroom_messages", "gauge", "Messages in each mailbox.")
            for mailbox in mailboxes { text.sample("mailroom_messages", ["mailbox": mailbox.id.slug], mailbox.count) }
            text.family("mailroom_unread_messages", "gauge", "Unread messages in each mailbox.")
            for mailbox in mailboxes {
                text.sample("mailroom_unread_messages", ["mailbox": mailbox.id.slug], mailbox.unreadCount)
            }
        }
        if let counts = try? reading({ reader throws(StoreError) in try reader.outboundCounts() }) {
            text.family("mailroom_outbound_recipients", "gauge", "Recipients of outbound mail by state (deferred: queued after a try).")
            for state in ["queued", "deferred", "sending", "sent", "failed"] {
                text.sample("mailroom_outbound_recipients", ["state": state], counts[state] ?? 0)
            }
        }
                if let counts = try? reading({ reader throws(StoreError) in try reader.webhookCounts() }) {
            text.family("mailroom_webhook_calls", "gauge", "Webhook calls by state.")
            for state in ["queued", "sent", "failed"] { text.sample("mailroom_webhook_calls", ["state": state], counts[state] ?? 0) }
        }
        text.family("process_resident_memory_bytes", "gauge", "Resident memory of the Mailroom process.")
        text.sample("process_resident_memory_bytes", [:], Self.residentBytes())
        var response = Response(text: text.value)
        response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// Resident memory from /proc/self/statm (its second field, in pages); 0 where there is none.
    static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Prometheus's text exposition format, written line by line.
struct MetricsText {
    private(set) var value = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        value += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [String: String], _ number: Int) {
        let pairs = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escaped($0.value))\"" }
        value += name + (pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}") + " \(number)\n"
    }

    /// A label value with `\`, `"` and line feeds escaped, as the format asks.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

/// `GET /events`: the live lists' stream (Server-Sent Events). One event per commit, named
/// `change`, with the revision as its id and every mailbox's counts as its data; the server
/// keeps the connection and writes them (see `EventHub`).
extension MailroomApp {
    static var eventStream: Response {
        Response(status: .ok, headers: Headers([
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
        ]))
    }

    /// A change event's data: its revision and, while some list listens, every mailbox's counts.
    @Sendable static func describeChange(_ revision: Int64, _ counts: [MailboxSummary]?) -> String {
        changeData(revision, counts).text
    }

    static func changeData(_ revision: Int64, _ counts: [MailboxSummary]?) -> JSON {
        guard let counts else { return .object([("revision", .number(revision))]) }
        return .object([
            ("revision", .number(revision)),
            ("mailboxes", .array(counts.map(Self.mailboxJSON))),
        ])
    }
}
