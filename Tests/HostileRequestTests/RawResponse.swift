/// One response as it came over the wire: status line, header fields in order, and body.
struct RawResponse {
    let version: String
    let status: Int
    let reason: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    /// The first value of `name`, compared without regard to case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// Status, headers and the start of the body on one line, for failure messages and reports.
    var summary: String {
        let fields = headers.map { "\($0.name): \($0.value)" }.joined(separator: " | ")
        let start = String(text.prefix(160)).map { $0.isNewline ? " " : $0 }
        return "\(version) \(status) \(reason) [\(fields)] body \(body.count) B: \(String(start))"
    }
}

/// Splits the bytes a server sent into responses.
enum ResponseParser {
    /// The complete responses at the start of `bytes`; a response without Content-Length runs to
    /// the end when the connection was closed. `rest` is whatever followed the last complete one.
    static func parse(_ bytes: [UInt8], connectionClosed: Bool) -> (responses: [RawResponse], rest: [UInt8]) {
        var responses: [RawResponse] = []
        var index = 0
        while index < bytes.count {
            guard let headEnd = find([13, 10, 13, 10], in: bytes, from: index) else { break }
            let head = String(decoding: bytes[index..<headEnd], as: UTF8.self)
            let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            let statusLine = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else { break }
            var headers: [(name: String, value: String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
            }
            let bodyStart = headEnd + 4
            let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
            let bodyEnd: Int
            if let length {
                guard bodyStart + length <= bytes.count else { break }
                bodyEnd = bodyStart + length
            } else if status == 304 || status == 204 || (100..<200).contains(status) {
                bodyEnd = bodyStart
            } else {
                guard connectionClosed else { break }
                bodyEnd = bytes.count
            }
            responses.append(RawResponse(
                version: String(statusLine[0]), status: status,
                reason: statusLine.count > 2 ? String(statusLine[2]) : "",
                headers: headers, body: Array(bytes[bodyStart..<bodyEnd])))
            index = bodyEnd
        }
        return (responses, Array(bytes[index...]))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<index + needle.count]) == needle { return index }
        }
        return nil
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
