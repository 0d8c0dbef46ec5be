import CivilDate
import Dispatch
import HTTP
import MailroomCore
import MailroomService
import SMTP
import Synchronization

/// `POST /api/v1/send`: Mailpit's JSON message, written out as mail and stored as if it had
/// come over SMTP (routed by its recipients, so it may land outside the Inbox).
extension MailpitApp {
    struct Person {
        var name: String
        var email: String

        /// `Name <email>`, the name as an RFC 2047 word when it is not plain ASCII.
        var field: String {
            name.isEmpty ? email : MailpitSend.encodedWord(name) + " <" + email + ">"
        }
    }

    /// The answer to `send`: its errors, unlike the rest of the API's, are JSON (`{"Error": …}`).
    func sendAnswer(_ request: Request) -> Response {
        do throws(HTTPError) {
            return try send(request)
        } catch {
            return Self.json(.object([("Error", .string(error.message))]), status: error.status)
        }
    }

    func send(_ request: Request) throws(HTTPError) -> Response {
        let members = try Self.body(request)
        func value(_ name: String) -> JSON? { members.first { $0.0 == name.lowercased() }?.1 }
        guard let from = try MailpitSend.person(value("From"), field: "From") else {
            throw MailpitSend.refusal("error building message: from not set")
        }
        let to = try MailpitSend.people(value("To"), field: "To")
        let cc = try MailpitSend.people(value("Cc"), field: "Cc")
        let replyTo = try MailpitSend.people(value("ReplyTo"), field: "Reply-To")
        var bcc: [String] = []
        if case .array(let values)? = value("Bcc") {
            for case .string(let address) in values {
                guard MailpitSend.isAddress(address) else { throw MailpitSend.refusal("invalid Bcc address: \(address)") }
                bcc.append(address)
            }
        }
        let recipients = to.map(\.email) + cc.map(\.email) + bcc
        guard !recipients.isEmpty else { throw MailpitSend.refusal("error building message: no recipients (to, cc, bcc) set") }
        var tags: [String] = []
        if case .array(let values)? = value("Tags") { for case .string(let tag) in values { tags.append(tag) } }
        var extra: [(String, String)] = []
        if case .object(let fields)? = value("Headers") {
            for (name, field) in fields {
                guard case .string(let text) = field else { continue }
                guard !MailpitSend.restricted.contains(name.lowercased()), !(name.lowercased() == "x-tags" && !tags.isEmpty),
                      MailpitSend.isFieldName(name) else {
                    throw MailpitSend.refusal("cannot overwrite header: \"\(name)\"")
                }
                extra.append((name, MailpitSend.oneLine(text)))
            }
        }
        var attachments: [MailpitSend.Attachment] = []
        if case .array(let values)? = value("Attachments") {
            for item in values {
                guard case .object(let fields) = item else { continue }
                let lowered = fields.map { ($0.0.lowercased(), $0.1) }
                func text(_ name: String) -> String {
                    if case .string(let value)? = lowered.first(where: { $0.0 == name })?.1 { return value }
                    return ""
                }
                let name = text("filename")
                var content = text("content")
                if content.hasPrefix("data:"), let comma = content.firstIndex(of: ",") { content = String(content[content.index(after: comma)...]) }
                guard let bytes = Base64.decode(Array(content.utf8).filter { $0 != 10 && $0 != 13 }) else {
                    throw MailpitSend.refusal("error decoding base64 attachment \"\(name)\"")
                }
                attachments.append(MailpitSend.Attachment(
                    name: name, type: text("contenttype").isEmpty ? "application/octet-stream" : text("contenttype"),
                    contentID: text("contentid"), bytes: bytes))
            }
        }
        var subject = ""
        if case .string(let text)? = value("Subject") { subject = text }
        var plain = ""
        if case .string(let text)? = value("Text") { plain = text }
        var html = ""
        if case .string(let text)? = value("HTML") { html = text }

        var headers: [(String, String)] = [("From", from.field)]
        if !to.isEmpty { headers.append(("To", to.map(\.field).joined(separator: ", "))) }
        if !cc.isEmpty { headers.append(("Cc", cc.map(\.field).joined(separator: ", "))) }
        if !replyTo.isEmpty { headers.append(("Reply-To", replyTo.map(\.field).joined(separator: ", "))) }
        headers.append(("Subject", MailpitSend.encodedWord(MailpitSend.oneLine(subject))))
        headers.append(("Date", UTCTime(secondsSinceEpoch: web.now()).mailDate))
        headers.append(("Message-ID", "<\(SecurityPolicy.randomToken())@mailroom>"))
        if !tags.isEmpty { headers.append(("X-Tags", tags.map(MailpitSend.oneLine).joined(separator: ", "))) }
        headers += extra
        let raw = MailpitSend.message(headers: headers, text: plain, html: html, attachments: attachments)
        guard raw.count <= Self.maximumSendBytes else {
            throw HTTPError(.contentTooLarge, "The message is larger than Mailroom takes (\(Self.maximumSendBytes) bytes).")
        }
        let ids = try deliver(raw, from: from.email, to: recipients, peer: request.peer)
        guard let id = ids.first else { throw HTTPError(.internalServerError, "The message was not stored.") }
        return Self.json(.object([("ID", .string(String(id.rawValue)))]))
    }

    /// The largest message `send` builds: SMTP's default SIZE.
    static let maximumSendBytes = 25 << 20

    /// Stores `raw` through the service as the SMTP door does, and waits (on the worker thread
    /// the server gave this request) until it is durable.
    private func deliver(_ raw: [UInt8], from sender: String, to recipients: [String], peer: String) throws(HTTPError) -> [MessageID] {
        let stored = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<[MessageID], ServiceError>?>(nil)
        service.receiveMail(raw, from: sender, to: recipients, peer: peer) { result in
            outcome.withLock { $0 = result }
            stored.signal()
        }
        stored.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let ids)?: return ids
        case .failure(let error)?: throw HTTPError(error)
        case nil: throw HTTPError(.internalServerError, "The message was not stored.")
        }
    }
}

/// Writing Mailpit's JSON message out as mail.
enum MailpitSend {
    struct Attachment {
        var name: String
        var type: String
        var contentID: String
        var bytes: [UInt8]
    }

    /// Fields the JSON sets itself, which `Headers` may not replace (as in Mailpit).
    static let restricted: Set<String> = ["to", "from", "cc", "bcc", "reply-to", "date", "subject", "content-type", "mime-version"]

    static func refusal(_ text: String) -> HTTPError {
        HTTPError(.badRequest, text)
    }

    static func person(_ value: JSON?, field: String) throws(HTTPError) -> MailpitApp.Person? {
        guard case .object(let fields)? = value else { return nil }
        let lowered = fields.map { ($0.0.lowercased(), $0.1) }
        var name = ""
        var email = ""
        if case .string(let text)? = lowered.first(where: { $0.0 == "name" })?.1 { name = oneLine(text) }
        if case .string(let text)? = lowered.first(where: { $0.0 == "email" })?.1 { email = text }
        guard !email.isEmpty else { return nil }
        guard isAddress(email) else { throw refusal("invalid \(field) address: \(email)") }
        return MailpitApp.Person(name: name, email: email)
    }

    static func people(_ value: JSON?, field: String) throws(HTTPError) -> [MailpitApp.Person] {
        guard case .array(let values)? = value else { return [] }
        var people: [MailpitApp.Person] = []
        for value in values {
            guard let person = try person(value, field: field) else { throw refusal("invalid \(field) address") }
            people.append(person)
        }
        return people
    }

    /// `local@domain` with nothing a header or an SMTP path could not carry.
    static func isAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && text.utf8.count <= 254
            && text.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: ",") }
    }

    static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 76 && name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }
    }

    /// The text with every line break and control character made a space: a header value.
    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 32 || $0.value == 127 ? " " : Character($0) })
    }

    /// `text` as is when it is plain ASCII, else one RFC 2047 word per 45 bytes of UTF-8 (whole
    /// characters only), Base64-encoded.
    static func encodedWord(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 128 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?" + Base64.encode(chunk) + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Base64.encode(chunk) + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// The whole message: a single text part, or multipart/alternative for text and HTML, inside
    /// multipart/mixed when there are attachments.
    static func message(headers: [(String, String)], text: String, html: String, attachments: [Attachment]) -> [UInt8] {
        let boundary = "mailroom-" + SecurityPolicy.randomToken()
        var out = ""
        for (name, value) in headers { out += name + ": " + value + "\r\n" }
        out += "MIME-Version: 1.0\r\n"
        let body: String
        let alternatives = !html.isEmpty && !text.isEmpty
        if !html.isEmpty && !alternatives {
            body = part(type: "text/html; charset=utf-8", text: html)
        } else if alternatives {
            body = "Content-Type: multipart/alternative; boundary=\"\(boundary)-a\"\r\n\r\n"
                + "--\(boundary)-a\r\n" + part(type: "text/plain; charset=utf-8", text: text)
                + "--\(boundary)-a\r\n" + part(type: "text/html; charset=utf-8", text: html)
                + "--\(boundary)-a--\r\n"
        } else {
            body = part(type: "text/plain; charset=utf-8", text: text)
        }
        guard !attachments.isEmpty else { return Array((out + body).utf8) }
        out += "Content-Type: multipart/mixed; boundary=\"\(boundary)\"\r\n\r\n--\(boundary)\r\n" + body
        for attachment in attachments {
            let name = oneLine(attachment.name).replacingQuotes
            out += "--\(boundary)\r\n"
            out += "Content-Type: \(oneLine(attachment.type)); name=\"\(name)\"\r\n"
            out += attachment.contentID.isEmpty
                ? "Content-Disposition: attachment; filename=\"\(name)\"\r\n"
                : "Content-Disposition: inline; filename=\"\(name)\"\r\nContent-ID: <\(oneLine(attachment.contentID))>\r\n"
            out += "Content-Transfer-Encoding: base64\r\n\r\n" + lines(Base64.encode(attachment.bytes)) + "\r\n"
        }
        out += "--\(boundary)--\r\n"
        return Array(out.utf8)
    }

    /// A text part: its own header, then the text in Base64 (any bytes, any line length).
    private static func part(type: String, text: String) -> String {
        "Content-Type: \(type)\r\nContent-Transfer-Encoding: base64\r\n\r\n" + lines(Base64.encode(Array(text.utf8))) + "\r\n"
    }

    /// Base64 text in lines of 76.
    private static func lines(_ text: String) -> String {
        var out: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            out.append(String(rest.prefix(76)))
            rest = rest.dropFirst(76)
        }
        return out.joined(separator: "\r\n")
    }
}

private extension String {
    /// A quoted-string's content: no quote or backslash to end it early.
    var replacingQuotes: String {
        String(map { $0 == "\"" || $0 == "\\" ? "_" : $0 })
    }
}
