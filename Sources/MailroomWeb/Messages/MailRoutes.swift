import Dispatch
import HTTP
import MailroomCore
import MailroomMail
import MailroomStore

/// The addresses under a mailed message: its HTML in a frame of its own, its attachments, and
/// its raw bytes. None of them changes anything.
extension MailroomApp {
    /// The HTML part as a document of its own, for the message page's sandboxed frame. Its
    /// policy allows no script, form, font or connection, and images only from this message's
    /// own parts (its `cid:` references, rewritten to them); links open in a new tab. Asked
    /// for with `images=remote` (the person's click on "Load remote images"), it also allows
    /// images from anywhere, and nothing else more.
    func showMailHTML(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let details = try mailDetails(id)
        guard let html = details.html else { throw HTTPError(.notFound, "Message \(id) has no HTML part.") }
        let parts = Paths.mailParts(id)
        // The Host was checked against the allowed names; only a plain host[:port] goes into the policy.
        let host = request.headers["Host"].flatMap { host in
            host.utf8.allSatisfy { $0 < 128 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]")) } && !host.isEmpty ? host : nil
        }
        let images = (host.map { "http://\($0)\(parts)" } ?? "'self'")
            + (MailHTML.asksForRemoteImages(request) ? " https: http:" : "")
        // A 304 carries them too: a browser puts the fields of a 304 in place of those it kept.
        let stored = storedContent(
            "html\(MailHTML.version)-\(details.raw)" + (MailHTML.asksForRemoteImages(request) ? "-remote" : ""), request,
            fields: [("Content-Security-Policy", MailHTML.policy(images: images)), ("X-Frame-Options", "SAMEORIGIN")])
        if let unchanged = stored.notModified(request) { return unchanged }
        var response = Response(html: Array(MailHTML.framed(html, id: id, attachments: details.attachments, version: contentTag).utf8))
        stored.mark(&response)
        return response
    }

    /// One attachment, always as a download, never shown in place: its bytes alone are read
    /// from the raw mail, where the parse at intake found them, and decoded as they are sent.
    func downloadMailPart(_ id: MessageID, part: Int, request: Request) throws(HTTPError) -> Response {
        let details = try mailDetails(id)
        guard let attachment = details.attachments.first(where: { $0.part == part }) else {
            throw HTTPError(.notFound, "Message \(id) has no attachment \(part).")
        }
        let stored = storedContent("raw-\(details.raw)-part-\(part)", request)
        if let unchanged = stored.notModified(request) { return unchanged }
        var response = try mailPart(details, id, attachment: attachment, isHead: request.method == .head)
        stored.mark(&response)
        return response
    }

    private func mailPart(_ details: MailDetails, _ id: MessageID, attachment: StoredAttachment, isHead: Bool) throws(HTTPError) -> Response {
        let part = attachment.part
        let type = MailHTML.safeType(attachment.type)
        let name = attachment.name ?? "attachment-\(part + 1)"
        var place = attachment.place.flatMap(Self.partPlace)
        if place == nil {
            // Stored before places were kept, or not a run of the raw bytes (a forwarded
            // message): one parse of the whole message. A large message holds a slot meanwhile,
            // so parallel requests for it are bounded as streamed downloads are.
            let rawLength = try reading({ reader throws(StoreError) in try reader.rawMailLength(details.raw) }) ?? 0
            let parsing = rawLength >= DownloadSlots.largeDownload ? downloads.take() : nil
            guard rawLength < DownloadSlots.largeDownload || parsing != nil else { throw DownloadSlots.busy() }
            defer { withExtendedLifetime(parsing) {} }
            let raw = try rawBytes(details, of: id)
            place = findPlaces(in: raw, of: details)[part] ?? nil
            if place == nil {
                guard let content = MailParser.attachment(part, of: raw) else {
                    throw HTTPError(.notFound, "Message \(id) has no attachment \(part).")
                }
                return Self.download(content, type: type, name: name)
            }
        }
        guard let place else { throw HTTPError(.notFound, "Message \(id) has no attachment \(part).") }
        let run = place.start..<(place.start + place.length)
        guard attachment.size >= DownloadSlots.largeDownload else {
            guard let encoded = try reading({ reader throws(StoreError) in
                try reader.rawMail(details.raw, at: place.start, count: place.length)
            }) else {
                throw HTTPError(.notFound, "There is no mailed message \(id); it may have been deleted.")
            }
            let decoder = PartDecoder(place.encoding)
            return Self.download(decoder.decode(encoded) + decoder.finish(), type: type, name: name)
        }
        return try streamedDownload(
            details.raw, run: run, decoder: PartDecoder(place.encoding), length: attachment.size, isHead: isHead,
            type: type, name: name)
    }

    /// The message exactly as it arrived; a large one is read from the file as it is sent.
    func downloadRawMail(_ id: MessageID, request: Request) throws(HTTPError) -> Response {
        let details = try mailDetails(id)
        let stored = storedContent("raw-\(details.raw)", request)
        if let unchanged = stored.notModified(request) { return unchanged }
        var response = try rawMail(details, id, isHead: request.method == .head)
        stored.mark(&response)
        return response
    }

    private func rawMail(_ details: MailDetails, _ id: MessageID, isHead: Bool) throws(HTTPError) -> Response {
        let name = "message-\(id).eml"
        guard let length = try reading({ reader throws(StoreError) in try reader.rawMailLength(details.raw) }) else {
            throw HTTPError(.notFound, "There is no mailed message \(id); it may have been deleted.")
        }
        guard length >= DownloadSlots.largeDownload else {
            return Self.download(try rawBytes(details, of: id), type: "message/rfc822", name: name)
        }
        return try streamedDownload(details.raw, run: 0..<length, decoder: nil, length: length, isHead: isHead,
                                    type: "message/rfc822", name: name)
    }

    /// A large download, streamed from the file, if a slot is free (a HEAD needs none).
    private func streamedDownload(
        _ raw: Int64, run: Range<Int>, decoder: PartDecoder?, length: Int, isHead: Bool, type: String, name: String
    ) throws(HTTPError) -> Response {
        let slot = isHead ? nil : downloads.take()
        guard isHead || slot != nil else {
            throw DownloadSlots.busy()
        }
        let body = StoredBody(store: store, raw: raw, run: run, decoder: decoder, length: length, slot: slot) { [weak self] in
            self?.report($0)
        }
        var response = Response(headers: Headers([("Content-Type", type)]), stream: body)
        Self.addDownloadHeaders(to: &response, name: name)
        return response
    }

    /// Where each of `details`' attachments lies in `raw`, by part number, found by one parse;
    /// what was found is recorded off this thread, so the next download reads its part alone.
    private func findPlaces(in raw: [UInt8], of details: MailDetails) -> [Int: Attachment.Place?] {
        guard let places = MailParser.places(in: raw) else { return [:] }
        var found: [Int: Attachment.Place?] = [:]
        var recorded: [Int: StoredAttachment.Place] = [:]
        for (part, place) in places.enumerated() {
            found[part] = place
            if let place, details.attachments.contains(where: { $0.part == part && $0.place == nil }) {
                recorded[part] = StoredAttachment.Place(start: place.start, length: place.length, encoding: place.encoding.rawValue)
            }
        }
        if !recorded.isEmpty {
            let (store, raw, recorded) = (store, details.raw, recorded)
            // The places are derived: a failure to record them costs the next download a parse.
            DispatchQueue.global(qos: .utility).async { try? store.recordPlaces(ofRaw: raw, recorded) }
        }
        return found
    }

    private static func partPlace(_ place: StoredAttachment.Place) -> Attachment.Place? {
        TransferEncoding(rawValue: place.encoding).map { Attachment.Place(start: place.start, length: place.length, encoding: $0) }
    }

    func mailDetails(_ id: MessageID) throws(HTTPError) -> MailDetails {
        guard let details = try reading({ reader throws(StoreError) in try reader.mailDetails(id) }) else {
            throw HTTPError(.notFound, "There is no mailed message \(id); it may have been deleted.")
        }
        return details
    }

    func rawBytes(_ details: MailDetails, of id: MessageID) throws(HTTPError) -> [UInt8] {
        guard let raw = try reading({ reader throws(StoreError) in try reader.rawMail(details.raw) }) else {
            throw HTTPError(.notFound, "There is no mailed message \(id); it may have been deleted.")
        }
        return raw
    }

    private static func download(_ bytes: [UInt8], type: String, name: String) -> Response {
        var response = Response(headers: Headers([("Content-Type", type)]), body: bytes)
        addDownloadHeaders(to: &response, name: name)
        return response
    }

    private static func addDownloadHeaders(to response: inout Response, name: String) {
        response.headers.add("Content-Disposition", MailHTML.disposition(name))
    }

    /// How to answer for stored bytes that `what` names in this database: a strong ETag (raw
    /// ids are never reused, and `contentTag` tells one database file from another), kept for
    /// good when the address carries this file's tag, as Mailroom's own links do. Without it
    /// the browser checks again each time: the same address could name other bytes after the
    /// database file is replaced (message numbers start again at 1).
    func storedContent(_ what: String, _ request: Request, fields: [(String, String)] = StoredContent.downloadFields) -> StoredContent {
        StoredContent(etag: "\"" + what + "-" + contentTag + "\"", forGood: request.query["v"] == contentTag, fields: fields)
    }
}

/// Bytes that never change once stored (a raw message, one of its parts, its HTML made safe to
/// frame): sent with a strong ETag, kept by the browser (`private`: never by a shared cache) for
/// good or checked each time, and answered 304 when the browser names that ETag.
struct StoredContent {
    /// A year: as long as caches keep anything.
    static let forGoodCacheControl = "private, max-age=31536000, immutable"
    static let checkedCacheControl = "private, no-cache"

    /// What a download's answer says of its policy (nothing it holds runs or loads anything).
    static let downloadFields = [("Content-Security-Policy", "default-src 'none'; sandbox")]

    let etag: String
    let forGood: Bool
    /// Fields the answer carries beside its ETag and caching, in its 304 too: a browser puts
    /// a 304's fields in place of those it kept, so a 304 with the site's own policy
    /// (`frame-ancestors 'none'`) would stop a kept frame from showing.
    let fields: [(String, String)]

    var cacheControl: String { forGood ? Self.forGoodCacheControl : Self.checkedCacheControl }

    /// `304 Not Modified` when the request's `If-None-Match` names the ETag.
    func notModified(_ request: Request) -> Response? {
        guard ETag.ifNoneMatch(request.headers["If-None-Match"], matches: etag) else { return nil }
        var response = Response(status: .notModified, headers: Headers(fields))
        mark(&response)
        return response
    }

    func mark(_ response: inout Response) {
        for (name, value) in fields { response.headers.set(name, value) }
        response.headers.set("ETag", etag)
        response.headers.set("Cache-Control", cacheControl)
    }
}

/// Mail's HTML made safe to frame, and the policies that go with it.
enum MailHTML {
    /// Changes whenever `framed` would frame stored HTML differently, so that no browser keeps an
    /// old framing.
    static let version = 1

    /// The query that shows one message's remote images: on that address alone, never remembered.
    static let remoteImagesQuery = "images=remote"

    static func asksForRemoteImages(_ request: Request) -> Bool {
        request.query["images"] == "remote"
    }

    /// Whether `html` refers to anything outside the message that a browser would fetch on
    /// its own: an `http:`, `https:` or protocol-relative (`//host`) URL in a `src`, `srcset`,
    /// `background` or `poster` attribute, or in a CSS `url(...)`. Links (`href`) are followed
    /// only when clicked, so they do not count.
    static func refersToRemoteContent(_ html: String) -> Bool {
        let bytes = Array(html.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index] | 0x20
            if byte == UInt8(ascii: "s") || byte == UInt8(ascii: "b") || byte == UInt8(ascii: "p") {
                let names: [(StaticString, isSrcset: Bool)] = [("srcset", true), ("src", false), ("background", false), ("poster", false)]
                for (name, isSrcset) in names where matches(bytes, at: index, name) {
                    let before = index > 0 ? bytes[index - 1] : 32
                    if isNameByte(before) { break }
                    if let value = attributeValue(bytes, after: index + name.utf8CodeUnitCount), isRemote(value, srcset: isSrcset) {
                        return true
                    }
                    break
                }
            } else if byte == UInt8(ascii: "u"), matches(bytes, at: index, "url(") {
                var start = index + 4
                while start < bytes.count, bytes[start] == 32 || bytes[start] == 9 || bytes[start] == 10 || bytes[start] == 13
                    || bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'") { start += 1 }
                if isRemote(bytes[start...], srcset: false) { return true }
            }
            index += 1
        }
        return false
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// The value of an attribute whose name ends at `index`: after optional spaces, `=`, and
    /// optional spaces, up to its closing quote (or, unquoted, the next space or `>`).
    private static func attributeValue(_ bytes: [UInt8], after index: Int) -> ArraySlice<UInt8>? {
        var at = index
        func skipSpaces() { while at < bytes.count, bytes[at] == 32 || bytes[at] == 9 || bytes[at] == 10 || bytes[at] == 13 { at += 1 } }
        skipSpaces()
        guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { return nil }
        at += 1
        skipSpaces()
        guard at < bytes.count else { return nil }
        let quote = bytes[at]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            let start = at + 1
            let end = bytes[start...].firstIndex(of: quote) ?? bytes.count
            return bytes[start..<end]
        }
        var end = at
        while end < bytes.count, bytes[end] != 32, bytes[end] != 9, bytes[end] != 10, bytes[end] != 13, bytes[end] != UInt8(ascii: ">") {
            end += 1
        }
        return bytes[at..<end]
    }

    /// Whether `value` starts with a remote URL; in a `srcset`, whether any of its candidates does.
    private static func isRemote(_ value: ArraySlice<UInt8>, srcset: Bool) -> Bool {
        var start = value.startIndex
        while start < value.endIndex {
            while start < value.endIndex, value[start] == 32 || value[start] == 9 || value[start] == 10 || value[start] == 13 {
                start += 1
            }
            let rest = Array(value[start...])
            if matches(rest, at: 0, "http:") || matches(rest, at: 0, "https:") || matches(rest, at: 0, "//") {
                return true
            }
            guard srcset, let comma = value[start...].firstIndex(of: UInt8(ascii: ",")) else { return false }
            start = comma + 1
        }
        return false
    }

    static func policy(images: String) -> String {
        "default-src 'none'; img-src \(images); style-src 'unsafe-inline'; form-action 'none'; "
            + "frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox"
    }

    /// The HTML with links opening outside the frame, `cid:` images pointing at this message's
    /// parts, and no `http-equiv` (a refresh could send the frame elsewhere).
    static func framed(_ html: String, id: MessageID, attachments: [StoredAttachment], version: String) -> String {
        var parts: [String: Int] = [:]
        for attachment in attachments {
            if let contentID = attachment.contentID { parts[contentID] = attachment.part }
        }
        // No Referer for anything the frame loads: remote images, once allowed, learn nothing of Mailroom.
        var out = "<!DOCTYPE html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><base target=\"_blank\">"
        out += rewrite(html) { reference in parts[reference].map { Paths.stored(Paths.mailPart(id, $0), version: version) } }
        return out
    }

    /// Replaces each `cid:REF` whose part is known, and neutralizes `http-equiv`.
    private static func rewrite(_ html: String, _ part: (String) -> String?) -> String {
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if matches(bytes, at: index, "cid:") {
                var end = index + 4
                while end < bytes.count, !stops(bytes[end]) { end += 1 }
                let reference = String(decoding: bytes[(index + 4)..<end], as: UTF8.self)
                if let replacement = part(reference) ?? part(reference.removingPercentEncoding) {
                    out += Array(replacement.utf8)
                    index = end
                    continue
                }
            } else if matches(bytes, at: index, "http-equiv") {
                out += Array("data-removed".utf8)
                index += 10
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func stops(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ")") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: " ") || byte == 9 || byte == 10 || byte == 13
    }

    /// Whether `word` (lowercase ASCII) starts at `index`, in any case.
    private static func matches(_ bytes: [UInt8], at index: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return word.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[index + offset] | 0x20 != expected[offset] | 0x20 { return false }
            return true
        }
    }

    /// Types a browser may be given as they are; anything that could run or render as a page
    /// (HTML, SVG, XML, scripts) goes as plain bytes.
    static func safeType(_ type: String) -> String {
        let safe: Set<String> = [
            "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff", "application/pdf",
            "text/plain", "text/csv", "text/calendar", "application/zip", "application/gzip", "message/rfc822",
            "audio/mpeg", "audio/wav", "video/mp4", "application/msword", "application/vnd.ms-excel",
        ]
        let lowered = type.lowercased()
        return safe.contains(lowered) || lowered.hasPrefix("application/vnd.openxmlformats") ? lowered : "application/octet-stream"
    }

    /// `attachment`, with the name in ASCII for old clients and in full (RFC 6266, 8187) for the rest.
    static func disposition(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 32 && scalar != "\"" && scalar != "\\" && scalar != "/" && scalar.value != 127
                ? Character(scalar) : "_"
        })
        var encoded = ""
        for byte in name.utf8 {
            let isPlain = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            encoded += isPlain ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}

private extension String {
    /// `%XX` sequences decoded; nil when there are none or they are not UTF-8.
    var removingPercentEncoding: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
