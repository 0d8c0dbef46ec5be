import HTTP
import MailroomCore
import MailroomService

/// Mailpit's release over Mailroom's outbound queue (see docs/outbound.md).
extension MailpitApp {
    /// `POST /api/v1/message/{ID}/release` with `{"To": ["address", ...]}`: queued for the
    /// relay, each address checked against the allow-list; `ok` once queued durably.
    func release(_ id: MessageID, _ request: Request) throws(HTTPError) -> Response {
        let members = try Self.body(request)
        guard case .array(let values)? = members.first(where: { $0.0 == "to" })?.1, !values.isEmpty else {
            throw HTTPError(.badRequest, "No valid addresses found")
        }
        var addresses: [String] = []
        for value in values {
            guard case .string(let address) = value else { throw HTTPError(.badRequest, "“To” must be an array of addresses.") }
            addresses.append(address)
        }
        let tally = try MailroomApp.serving { () throws(ServiceError) in
            try service.release([id], to: addresses.joined(separator: ","), cause: "mailpit")
        }
        guard tally.changed == 1 else { throw HTTPError(.notFound, "Message not found") }
        return Self.ok
    }
}
