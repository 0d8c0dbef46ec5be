import HTTP

/// A stored message in MailHog's shape (`data.Message`): the envelope as SMTP paths, the DATA
/// split into header fields and body, its top-level MIME parts when it is multipart, and the
/// raw text. Built from the kept raw bytes, as MailHog parses them: header names as sent,
/// each field's values as a list, the body still in its transfer encoding.
struct MailHogMessage {
    let id: String
    let envelopeFrom: String
    let envelopeTo: [String]
    let raw: [UInt8]
    let created: String

    var json: JSON {
        let content = MailHogPart(raw)
        let parts = content.parts
        return .object([
            ("ID", .string(id)),
            ("From", Self.path(envelopeFrom)),
            ("To", .array(envelopeTo.map(Self.path))),
            ("Content", content.json(nested: false)),
            ("Created", .string(created)),
            ("MIME", parts.map { .object([("Parts", .array($0.map { $0.json(nested: true) }))]) } ?? .null),
            ("Raw", .object([
                ("From", .string(envelopeFrom)),
                ("To", .array(envelopeTo.map(JSON.string))),
                ("Data", .string(String(decoding: raw, as: UTF8.self))),
                ("Helo", .string("")),
            ])),
        ])
    }

    /// An SMTP path as MailHog writes it: local part and domain apart.
    static func path(_ address: String) -> JSON {
        let at = address.lastIndex(of: "@")
        let mailbox = at.map { String(address[..<$0]) } ?? address
        let domain = at.map { String(address[address.index(after: $0)...]) } ?? ""
        return .object([("Relays", .null), ("Mailbox", .string(mailbox)), ("Domain", .string(domain)), ("Params", .string(""))])
    }
}

/// One piece of DATA, the whole message or a part of it: header fields, then the body.
struct MailHogPart {
    var headers: [(name: String, values: [String])] = []
    var body: [UInt8]
    let size: Int

    init(_ bytes: ArraySlice<UInt8>) {
        size = bytes.count
        guard let end = Self.headerEnd(bytes) else {
            body = Array(bytes)
            return
        }
        body = Array(bytes[end.body...])
        let block = String(decoding: bytes[bytes.startIndex..<end.headers], as: UTF8.self)
        // "\r\n" is one Character to Swift, so lines are split at either ending.
        for line in block.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
                let last = headers.count - 1
                headers[last].values[headers[last].values.count - 1] += " " + line.trimmingCharacters(in: " \t")
            } else if let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
                if let index = headers.firstIndex(where: { $0.name == name }) {
                    headers[index].values.append(value)
                } else {
                    headers.append((name, [value]))
                }
            }
        }
    }

    init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// The first value of the field `name`, whatever its case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.values.first
    }

    /// The parts between its boundaries, when this is multipart: the preamble and epilogue
    /// are not parts (MailHog lists them; no client looks at them).
    var parts: [MailHogPart]? {
        guard let type = header("Content-Type"), type.lowercased().hasPrefix("multipart/"),
              let boundary = Self.parameter("boundary", in: type), !boundary.isEmpty else { return nil }
        let delimiter = Array(("--" + boundary).utf8)
        var parts: [MailHogPart] = []
        var start: Int?
        var index = 0
        while index + delimiter.count <= body.count {
            let atLineStart = index == 0 || body[index - 1] == 10
            if atLineStart && body[index..<index + delimiter.count].elementsEqual(delimiter) {
                if let start {
                    var end = index
                    if end > start, body[end - 1] == 10 { end -= 1 }
                    if end > start, body[end - 1] == 13 { end -= 1 }
                    parts.append(MailHogPart(body[start..<end]))
                }
                let after = index + delimiter.count
                if after + 1 < body.count && body[after] == UInt8(ascii: "-") && body[after + 1] == UInt8(ascii: "-") { break }
                var next = after
                while next < body.count && body[next] != 10 { next += 1 }
                start = next + 1
                index = next
            }
            index += 1
        }
        return parts
    }

    func json(nested: Bool) -> JSON {
        .object([
            ("Headers", .object(headers.map { ($0.name, .array($0.values.map(JSON.string))) })),
            ("Body", .string(String(decoding: body, as: UTF8.self))),
            ("Size", .int(size)),
            // MailHog sets MIME on parts that are themselves multipart, never on the top.
            ("MIME", nested ? (parts.map { .object([("Parts", .array($0.map { $0.json(nested: true) }))]) } ?? .null) : .null),
        ])
    }

    /// Where the header block ends and the body begins: after the first empty line.
    private static func headerEnd(_ bytes: ArraySlice<UInt8>) -> (headers: Int, body: Int)? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 10 {
                let next = index + 1
                if next < bytes.endIndex && bytes[next] == 10 { return (index, next + 1) }
                if next + 1 < bytes.endIndex && bytes[next] == 13 && bytes[next + 1] == 10 { return (index, next + 2) }
            }
            index += 1
        }
        return nil
    }

    /// A parameter of a structured field: `boundary` of `multipart/mixed; boundary="x"`.
    static func parameter(_ name: String, in field: String) -> String? {
        for piece in field.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " \t").lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: " \t")
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
