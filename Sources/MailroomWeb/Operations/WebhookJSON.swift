import HTTP
import MailroomCore
import MailroomService

extension MailroomApp {
    /// A webhook call's body: the stored message in a few fields, with the addresses of its page
    /// and raw bytes under `baseURL` (how others reach Mailroom, such as `http://mailroom.lan:8080`).
    /// `baseURL` is asked each time: the port is known only once the server listens.
    public static func webhookBody(baseURL: @escaping @Sendable () -> String) -> @Sendable (WebhookSummary) -> [UInt8] {
        { summary in
            let given = baseURL()
            let base = given.hasSuffix("/") ? String(given.dropLast()) : given
            return JSON.object([
                ("event", .string("message.stored")),
                ("id", .number(summary.id.rawValue)),
                ("mailbox", .string(summary.mailbox.slug)),
                ("from", .string(summary.from)),
                ("to", .array(summary.to.map(JSON.string))),
                ("subject", .string(summary.subject)),
                ("size", .int(summary.size)),
                ("tags", .array(summary.tags.map(JSON.string))),
                ("received_at", .string(Formatting.iso8601(summary.receivedAt))),
                ("url", .string(base + Paths.message(summary.id))),
                ("raw_url", .string(base + apiPrefix + "messages/\(summary.id)/raw")),
            ]).bytes
        }
    }
}
