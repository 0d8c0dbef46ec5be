#if canImport(Glibc)
import Glibc
#endif

/// One message read from an mbox file: its bytes as they arrived (the `>From ` quoting undone)
/// and its postmark, the `From ` line before it.
public struct MboxMessage: Sendable, Equatable {
    public var raw: [UInt8]
    /// The postmark without `From ` and its line end: usually the sender and a date.
    public var postmark: String
    /// The envelope sender named by the postmark, when it names one.
    public var sender: String? {
        let first = postmark.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        return first.isEmpty || first == "-" || first == "MAILER-DAEMON" ? nil : first
    }
}

/// Reads an mbox file as it streams by, a chunk at a time, in memory bounded by the largest
/// message (RFC 4155; the `mboxrd` convention for `From ` lines in bodies).
///
/// A line starting with `From ` begins a new message only at the start of the file or after an
/// empty line, and only when it carries a time (`12:34`), as every mbox writer's postmark does.
/// GMime's mbox mode splits at any `From ` line, which cuts a message in two wherever a writer
/// left a body's `From ` unquoted, so the boundaries are found here and each message is parsed
/// by GMime on its own. In a body, `>From `, `>>From ` … lose one `>`; the empty line that ends
/// each message (the separator) is not part of it. A file that does not start with a postmark is
/// one message (an `.eml` file). Lines may end in LF or CRLF.
public struct MboxScanner {
    private var line: [UInt8] = []
    private var current: [UInt8] = []
    private var postmark: String?
    private var lastLineLength = 0
    private var lastLineWasEmpty = false
    private var atStart = true
    /// Bytes scanned so far (for progress).
    public private(set) var consumed = 0

    public init() {}

    /// Scans `bytes`, handing each message it completes to `emit`.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (MboxMessage) throws -> Void) rethrows {
        consumed += bytes.count
        var start = 0
        while start < bytes.count {
            guard let newline = Self.index(of: 10, in: bytes, from: start) else {
                line.append(contentsOf: bytes[start..<bytes.count])
                return
            }
            if line.isEmpty {
                try take(UnsafeRawBufferPointer(rebasing: bytes[start...newline]), emit)
            } else {
                line.append(contentsOf: bytes[start...newline])
                let whole = line
                line.removeAll(keepingCapacity: true)
                try whole.withUnsafeBytes { try take($0, emit) }
            }
            start = newline + 1
        }
    }

    /// Ends the file: the last message, if any (a last line without its newline is kept as it is).
    public mutating func finish(_ emit: (MboxMessage) throws -> Void) rethrows {
        if !line.isEmpty {
            let whole = line
            line.removeAll()
            try whole.withUnsafeBytes { try take($0, emit) }
        }
        if lastLineWasEmpty { current.removeLast(lastLineLength) }
        if postmark != nil || !current.isEmpty {
            try emit(MboxMessage(raw: current, postmark: postmark ?? ""))
        }
        current = []
        postmark = nil
    }

    /// One whole line, its newline included (or the file's last, without one).
    private mutating func take(_ text: UnsafeRawBufferPointer, _ emit: (MboxMessage) throws -> Void) rethrows {
        let isPostmark = Self.startsWithFrom(text, at: 0) && (atStart || lastLineWasEmpty) && (atStart || Self.hasTime(text))
        if isPostmark {
            if !atStart {
                if lastLineWasEmpty { current.removeLast(lastLineLength) }
                try emit(MboxMessage(raw: current, postmark: postmark ?? ""))
                current.removeAll(keepingCapacity: true)
            }
            postmark = String(decoding: Self.trimmingLineEnd(text).dropFirst(5), as: UTF8.self)
            atStart = false
            lastLineWasEmpty = false
            lastLineLength = 0
            return
        }
        atStart = false
        // mboxrd: `>From `, `>>From ` … were quoted by the writer; one `>` comes off.
        var quotes = 0
        while quotes < text.count && text[quotes] == UInt8(ascii: ">") { quotes += 1 }
        if quotes > 0 && Self.startsWithFrom(text, at: quotes) {
            current.append(contentsOf: text[1...])
        } else {
            current.append(contentsOf: text)
        }
        lastLineLength = text.count - (quotes > 0 && Self.startsWithFrom(text, at: quotes) ? 1 : 0)
        lastLineWasEmpty = Self.trimmingLineEnd(text).isEmpty && text.last == 10
    }

    private static func index(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
              let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    private static func startsWithFrom(_ text: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard text.count >= offset + 5 else { return false }
        return text[offset] == 70 && text[offset + 1] == 114 && text[offset + 2] == 111 && text[offset + 3] == 109
            && text[offset + 4] == 32
    }

    /// Whether a line holds a time of day, `H:MM` or `HH:MM`, as every postmark's date does.
    private static func hasTime(_ text: UnsafeRawBufferPointer) -> Bool {
        guard text.count >= 4 else { return false }
        for index in 1..<(text.count - 2) where text[index] == 58 {
            if isDigit(text[index - 1]) && isDigit(text[index + 1]) && isDigit(text[index + 2]) { return true }
        }
        return false
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }

    private static func trimmingLineEnd(_ text: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer> {
        var end = text.count
        if end > 0 && text[end - 1] == 10 { end -= 1 }
        if end > 0 && text[end - 1] == 13 { end -= 1 }
        return text[0..<end]
    }
}

/// Writes messages as mbox (`mboxrd`): what `MboxScanner` reads back byte for byte.
public enum MboxWriter {
    /// One message: its postmark (`From SENDER DATE`), its lines with `From ` quoted, and the
    /// empty line that separates it from the next. Lines end as the message's first line does
    /// (CRLF for mail as it came over SMTP). A message without a final newline gets one.
    public static func entry(_ raw: [UInt8], sender: String?, date: Int64) -> [UInt8] {
        let crlf = raw.firstIndex(of: 10).map { $0 > 0 && raw[$0 - 1] == 13 } ?? false
        let end: [UInt8] = crlf ? [13, 10] : [10]
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 96)
        let name = sender.flatMap { $0.isEmpty || $0.contains(" ") ? nil : $0 } ?? "MAILER-DAEMON"
        out.append(contentsOf: Array("From \(name) \(asctime(date))".utf8))
        out.append(contentsOf: end)
        var start = 0
        raw.withUnsafeBytes { bytes in
            while start < bytes.count {
                var quotes = start
                while quotes < bytes.count && bytes[quotes] == UInt8(ascii: ">") { quotes += 1 }
                if quotes + 5 <= bytes.count && bytes[quotes] == 70 && bytes[quotes + 1] == 114 && bytes[quotes + 2] == 111
                    && bytes[quotes + 3] == 109 && bytes[quotes + 4] == 32 {
                    out.append(UInt8(ascii: ">"))
                }
                let stop: Int
                if let base = bytes.baseAddress, let found = memchr(base + start, 10, bytes.count - start) {
                    stop = base.distance(to: UnsafeRawPointer(found)) + 1
                } else {
                    stop = bytes.count
                }
                out.append(contentsOf: bytes[start..<stop])
                start = stop
            }
        }
        if raw.last != 10 { out.append(contentsOf: end) }
        out.append(contentsOf: end)
        return out
    }

    /// A postmark's date: `Mon Jan  1 00:00:00 2024`, in UTC.
    static func asctime(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = parts.tm_mday < 10 ? " \(parts.tm_mday)" : "\(parts.tm_mday)"
        return "\(days[Int(parts.tm_wday)]) \(months[Int(parts.tm_mon)]) \(day) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) \(parts.tm_year + 1900)"
    }
}
