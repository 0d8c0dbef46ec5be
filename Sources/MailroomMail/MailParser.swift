private import CGMime

/// Raw mail in, `ParsedMail` out, through GMime 3: the only code that touches GMime.
///
/// GMime objects are not thread-safe; each parse makes and frees its own, on the calling thread.
public enum MailParser {
    /// GMime's one-time set-up, run before the first parse.
    static let ready: Bool = {
        g_mime_init()
        return true
    }()

    /// The parser's options, made once: each parse copies them (GMime clones the options it is
    /// given), so every thread reads them and none changes them.
    /// 8-bit headers that name no charset are read as UTF-8 when they are, else as Windows'
    /// Western charset, which is what old devices send.
    private nonisolated(unsafe) static let options: OpaquePointer? = {
        guard ready, let options = g_mime_parser_options_new() else { return nil }
        withCharsets(["UTF-8", "windows-1252"]) { g_mime_parser_options_set_fallback_charsets(options, $0) }
        return options
    }()

    /// Parses `raw`. Mail that GMime cannot read as a message at all is nil.
    public static func parse(_ raw: [UInt8]) -> ParsedMail? {
        withMessage(raw) { message, holder in
            var mail = ParsedMail()
            mail.subject = string(g_mime_message_get_subject(message)) ?? ""
            mail.from = addresses(g_mime_message_get_from(message))
            mail.to = addresses(g_mime_message_get_to(message))
            mail.cc = addresses(g_mime_message_get_cc(message))
            if let date = g_mime_message_get_date(message) {
                mail.date = Int64(g_date_time_to_unix(date))
            }
            mail.messageID = string(g_mime_message_get_message_id(message))
            mail.tagsHeader = message.withMemoryRebound(to: GMimeObject.self, capacity: 1) { object in
                string(g_mime_object_get_header(object, "X-Tags"))
            }
            if let root = g_mime_message_get_mime_part(message) {
                var walk = Walk(raw: holder)
                walk.visit(root, depth: 0)
                mail.text = walk.text ?? walk.html.map(HTMLText.text(of:)) ?? ""
                mail.html = walk.html
                mail.attachments = walk.attachments
            }
            return mail
        } ?? nil
    }

    /// The decoded content of attachment number `index` (as `parse` lists them), or nil when
    /// there is no such attachment.
    public static func attachment(_ index: Int, of raw: [UInt8]) -> [UInt8]? {
        withMessage(raw) { message, holder -> [UInt8]? in
            guard index >= 0, let root = g_mime_message_get_mime_part(message) else { return nil }
            var walk = Walk(raw: holder, sizing: false)
            walk.visit(root, depth: 0)
            guard index < walk.objects.count else { return nil }
            return Walk.content(of: walk.objects[index])
        } ?? nil
    }

    /// Where each attachment's content lies in `raw` (in the order `parse` lists them), found
    /// without decoding any of it: for mail stored before places were kept. Nil when GMime
    /// cannot read `raw` as a message.
    public static func places(in raw: [UInt8]) -> [Attachment.Place?]? {
        withMessage(raw) { message, holder -> [Attachment.Place?] in
            guard let root = g_mime_message_get_mime_part(message) else { return [] }
            var walk = Walk(raw: holder, sizing: false)
            walk.visit(root, depth: 0)
            return walk.attachments.map(\.place)
        }
    }

    /// Parses `raw` in place (no copy of its bytes) and hands the message, and the array that
    /// the parser's stream reads, to `body`; nothing GMime made outlives the call.
    private static func withMessage<Result>(
        _ raw: [UInt8], _ body: (UnsafeMutablePointer<GMimeMessage>, UnsafeMutablePointer<GByteArray>) -> Result
    ) -> Result? {
        guard ready else { return nil }
        return raw.withUnsafeBufferPointer { bytes -> Result? in
            let holder = UnsafeMutablePointer<GByteArray>.allocate(capacity: 1)
            defer { holder.deallocate() }
            let stream = mailroom_stream_over(bytes.baseAddress, bytes.count, holder)
            defer { mailroom_unref(stream) }
            guard let parser = g_mime_parser_new_with_stream(stream) else { return nil }
            defer { mailroom_unref(parser) }
            // A part's content then stays a bounded view of `stream` (not a copy), and its
            // bounds are where the content lies in `raw`: what `Attachment.place` records.
            g_mime_parser_set_persist_stream(parser, 1)
            guard let options = Self.options, let message = g_mime_parser_construct_message(parser, options) else { return nil }
            defer { mailroom_unref(message) }
            return body(message, holder)
        }
    }

    private static func withCharsets(_ names: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Void) {
        let copies = names.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    static func string(_ text: UnsafePointer<CChar>?) -> String? {
        text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
    }

    /// A string GMime made for us, freed once read.
    static func taking(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        defer { g_free(text) }
        return string(text.map { UnsafePointer($0) })
    }

    private static func addresses(_ list: UnsafeMutablePointer<InternetAddressList>?) -> [Address] {
        guard let list else { return [] }
        var found: [Address] = []
        for index in 0..<internet_address_list_length(list) {
            guard let address = internet_address_list_get_address(list, index) else { continue }
            if mailroom_is_mailbox(address) != 0 {
                found.append(Address(
                    name: string(internet_address_get_name(address)) ?? "",
                    address: string(internet_address_mailbox_get_addr(mailroom_as_mailbox(address))) ?? ""))
            } else if mailroom_is_group(address) != 0 {
                found += addresses(internet_address_group_get_members(mailroom_as_group(address)))
            }
        }
        return found
    }
}

/// One pass over a message's parts: the first text/plain and text/html that are not attachments
/// are its text and HTML; every other leaf part is an attachment.
private struct Walk {
    var text: String?
    var html: String?
    var attachments: [Attachment] = []
    /// The parts listed in `attachments`, valid while their message is.
    var objects: [UnsafeMutablePointer<GMimeObject>] = []
    /// The bytes the message was parsed from, through which part contents are located.
    let raw: UnsafeMutablePointer<GByteArray>
    /// Whether to decode each attachment to learn its size.
    var sizing = true

    /// Nesting deeper than this is not mail but an attack on the parser's stack.
    static let maximumDepth = 32

    mutating func visit(_ object: UnsafeMutablePointer<GMimeObject>, depth: Int) {
        guard depth <= Self.maximumDepth else { return }
        if mailroom_is_multipart(object) != 0 {
            let multipart = mailroom_as_multipart(object)
            for index in 0..<g_mime_multipart_get_count(multipart) {
                if let part = g_mime_multipart_get_part(multipart, index) { visit(part, depth: depth + 1) }
            }
            return
        }
        let type = MailParser.taking(g_mime_content_type_get_mime_type(g_mime_object_get_content_type(object)))?
            .lowercased() ?? "application/octet-stream"
        if mailroom_is_message_part(object) != 0 {
            // A forwarded message: listed as what it is, an .eml to download.
            attachments.append(Attachment(name: "message.eml", type: type, size: sizing ? Self.size(of: object) : 0))
            objects.append(object)
            return
        }
        guard mailroom_is_part(object) != 0 else { return }
        let part = mailroom_as_part(object)
        let isAttachment = g_mime_part_is_attachment(part) != 0
        if !isAttachment, mailroom_is_text_part(object) != 0, type == "text/plain" || type == "text/html" {
            let decoded = MailParser.taking(g_mime_text_part_get_text(mailroom_as_text_part(object))) ?? ""
            if type == "text/plain", text == nil {
                text = decoded
                return
            }
            if type == "text/html", html == nil {
                html = decoded
                return
            }
        }
        attachments.append(Attachment(
            name: MailParser.string(g_mime_part_get_filename(part)), type: type, size: sizing ? Self.size(of: object) : 0,
            contentID: MailParser.string(g_mime_object_get_content_id(object)), place: place(of: part)))
        objects.append(object)
    }

    /// Where `part`'s encoded content lies in the raw bytes: the bounds of its content's stream
    /// when that is a view of the parsed bytes, as the persisting parser makes it.
    private func place(of part: UnsafeMutablePointer<GMimePart>?) -> Attachment.Place? {
        guard let part, let content = g_mime_part_get_content(part), let stream = g_mime_data_wrapper_get_stream(content),
              mailroom_stream_is_view_of(stream, raw) != 0 else { return nil }
        let start = Int(stream.pointee.bound_start)
        let end = stream.pointee.bound_end < 0 ? Int(raw.pointee.len) : Int(stream.pointee.bound_end)
        guard start >= 0, start <= end, end <= Int(raw.pointee.len) else { return nil }
        let encoding: TransferEncoding
        switch g_mime_data_wrapper_get_encoding(content) {
        case GMIME_CONTENT_ENCODING_8BIT: encoding = .eightBit
        case GMIME_CONTENT_ENCODING_BINARY: encoding = .binary
        case GMIME_CONTENT_ENCODING_BASE64: encoding = .base64
        case GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE: encoding = .quotedPrintable
        case GMIME_CONTENT_ENCODING_UUENCODE: encoding = .uuencode
        default: encoding = .sevenBit
        }
        return Attachment.Place(start: start, length: end - start, encoding: encoding)
    }

    /// A part's content with its transfer encoding undone; a forwarded message as its text.
    static func content(of object: UnsafeMutablePointer<GMimeObject>) -> [UInt8] {
        let sink = g_mime_stream_mem_new()
        defer { mailroom_unref(sink) }
        if mailroom_is_part(object) != 0, let content = g_mime_part_get_content(mailroom_as_part(object)) {
            _ = g_mime_data_wrapper_write_to_stream(content, sink)
        } else if mailroom_is_message_part(object) != 0,
                  let inner = g_mime_message_part_get_message(mailroom_as_message_part(object)) {
            _ = g_mime_object_write_to_stream(UnsafeMutableRawPointer(inner).assumingMemoryBound(to: GMimeObject.self), nil, sink)
        } else {
            _ = g_mime_object_write_to_stream(object, nil, sink)
        }
        guard let array = mailroom_stream_bytes(sink), let data = array.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(array.pointee.len)))
    }

    /// The decoded size of a part: its content written, transfer encoding undone, to nowhere.
    private static func size(of object: UnsafeMutablePointer<GMimeObject>) -> Int {
        let sink = g_mime_stream_null_new()
        defer { mailroom_unref(sink) }
        if mailroom_is_part(object) != 0, let content = g_mime_part_get_content(mailroom_as_part(object)) {
            _ = g_mime_data_wrapper_write_to_stream(content, sink)
        } else {
            _ = g_mime_object_write_to_stream(object, nil, sink)
        }
        return Int(mailroom_null_written(sink))
    }
}
