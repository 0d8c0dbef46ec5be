import CivilDate
import Digests
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
        let time = UTCTime(secondsSinceEpoch: seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = time.day < 10 ? " \(time.day)" : "\(time.day)"
        return "\(CivilDate.weekdayAbbreviations[time.weekday]) \(CivilDate.monthAbbreviations[time.month - 1]) \(day) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) \(time.year)"
    }
}

/// What `mailroom import` knows a message by, so that a message is imported once however it
/// travelled: the SHA-256 of its bytes less what an mbox round trip changes. `MboxWriter` ends a
/// message that lacked a final newline with one, and quotes `From ` lines that `MboxScanner`
/// unquotes; other tools quote the mboxo way (`From ` only) or not at all. So the key is taken
/// over the bytes without the line ends at their very end and with every `>` before a line's
/// `From ` left out. The same key comes out of the message as read from the original file
/// offline, as sent to a running Mailroom (which gets it as mbox, a final newline added), and
/// as read back from an export.
public enum ImportKey {
    /// The key and the former keys (see `formerKeys`) of `raw`, the message as read.
    /// A first `X-Tags` line, which an export writes (`TagsHeader`), is left out of the key.
    public static func keys(for raw: [UInt8]) -> (key: [UInt8], former: [[UInt8]]) {
        let tagLine = TagsHeader.leadingLineLength(raw)
        let rest = tagLine == 0 ? raw : Array(raw[tagLine...])
        let comparable = Self.comparable(rest)
        var former = formerKeys(for: rest, comparable: comparable)
        // Kept before the line was left out, a message was known by all of its bytes.
        if tagLine > 0 { former.append(MailDigest.sha256(Self.comparable(raw).bytes)) }
        return (MailDigest.sha256(comparable.bytes), former)
    }

    /// The bytes the key is taken over, and whether a `>` was left out of them (when not, they
    /// are `raw` up to its final line ends).
    static func comparable(_ raw: [UInt8]) -> (bytes: [UInt8], unquoted: Bool) {
        var end = raw.count
        while end > 0 && (raw[end - 1] == 10 || raw[end - 1] == 13) { end -= 1 }
        // Most mail has no line that starts with `>`: one search finds that, and one copy is the key's bytes.
        guard Self.hasQuotedFrom(raw, before: end) else { return (Array(raw[0..<end]), false) }
        var out: [UInt8] = []
        out.reserveCapacity(end)
        raw.withUnsafeBytes { bytes in
            var start = 0
            while start < end {
                var text = start
                while text < end && bytes[text] == UInt8(ascii: ">") { text += 1 }
                let quoted = text > start && Self.isFrom(bytes, at: text, before: end)
                let stop: Int
                if let base = bytes.baseAddress, let found = memchr(base + start, 10, end - start) {
                    stop = base.distance(to: UnsafeRawPointer(found)) + 1
                } else {
                    stop = end
                }
                out.append(contentsOf: bytes[(quoted ? text : start)..<stop])
                start = stop
            }
        }
        return (out, true)
    }

    /// Whether a line of `raw[0..<end]` is `From ` after one or more `>`.
    private static func hasQuotedFrom(_ raw: [UInt8], before end: Int) -> Bool {
        raw.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return false }
            var index = 0
            while index < end, let found = memchr(base + index, Int32(UInt8(ascii: ">")), end - index) {
                let at = base.distance(to: UnsafeRawPointer(found))
                if at == 0 || bytes[at - 1] == 10 {
                    var text = at
                    while text < end && bytes[text] == UInt8(ascii: ">") { text += 1 }
                    if Self.isFrom(bytes, at: text, before: end) { return true }
                    index = text
                } else {
                    index = at + 1
                }
            }
            return false
        }
    }

    private static func isFrom(_ bytes: UnsafeRawBufferPointer, at index: Int, before end: Int) -> Bool {
        index + 5 <= end && bytes[index] == 70 && bytes[index + 1] == 114 && bytes[index + 2] == 111
            && bytes[index + 3] == 109 && bytes[index + 4] == 32
    }

    /// The keys a message may already be kept under in a file imported into by a Mailroom whose
    /// key was the SHA-256 of the bytes as read: of `raw` (the same file imported again, offline,
    /// or through a running Mailroom, which was sent each message with a final newline), and of
    /// `raw` less its final line end (an export of a message that had none). Keys equal to the
    /// key are left out: a message that ends in one newline and has no quoted line has one.
    ///
    /// An import looks these up beside the key, rather than a migration rewriting the kept keys:
    /// the store cannot take a SHA-256 (only this module links OpenSSL), and a lookup is one
    /// probe of the keys' index for each message.
    static func formerKeys(for raw: [UInt8], comparable: (bytes: [UInt8], unquoted: Bool)) -> [[UInt8]] {
        // Without a `>` left out, the key's bytes are a prefix of `raw`: equal when as long.
        let length = comparable.bytes.count
        var former: [[UInt8]] = []
        if comparable.unquoted || raw.count != length { former.append(MailDigest.sha256(raw)) }
        if raw.last == 10 {
            let cut = raw.count >= 2 && raw[raw.count - 2] == 13 ? 2 : 1
            if comparable.unquoted || raw.count - cut != length { former.append(MailDigest.sha256(Array(raw.dropLast(cut)))) }
        }
        return former
    }
}

/// What a file given to `mailroom import` (or a body sent to `POST /api/v1/import`) holds, told
/// from its first bytes: an mbox starts with a postmark; a file without one is imported as one
/// message only when it starts with a header such as a mailer writes (an `.eml` file), so that a
/// picture or a note named by mistake is refused rather than stored as an unreadable message.
public enum MailFile: Equatable, Sendable {
    case empty
    case mbox
    case message
    /// Neither an mbox nor a message.
    case other

    /// How many bytes from the start `init(start:isWhole:)` wants to see.
    public static let lookedAt = 64 << 10

    /// Header names that mark a message: one of them must be in the header, so that a note whose
    /// lines happen to read `Word: text` is not taken for mail.
    static let mailHeaders: Set<String> = [
        "from", "sender", "reply-to", "to", "cc", "bcc", "subject", "date", "message-id", "in-reply-to",
        "references", "received", "return-path", "delivered-to", "mime-version", "content-type",
        "content-transfer-encoding", "dkim-signature", "resent-from", "resent-date", "x-mailer", "user-agent",
    ]

    /// Judges `bytes`, the file's start (up to `lookedAt` bytes); `isWhole` when that is the whole
    /// file, so its last line is complete even without a newline.
    public init(start bytes: ArraySlice<UInt8>, isWhole: Bool) {
        if bytes.isEmpty {
            self = .empty
        } else if bytes.starts(with: Array("From ".utf8)) {
            self = .mbox
        } else {
            self = Self.startsWithHeader(bytes, isWhole: isWhole) ? .message : .other
        }
    }

    /// Whether every line before the first empty one (or the end of what is seen) is a header
    /// field (`Name: value`, a name of printable ASCII without a colon) or folds the one before,
    /// and one of them is a mail header.
    private static func startsWithHeader(_ bytes: ArraySlice<UInt8>, isWhole: Bool) -> Bool {
        var sawMailHeader = false
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: 10) else {
                // A last line cut off by the end of what is seen is not judged.
                if !isWhole { break }
                return field(bytes[start...], first: start == bytes.startIndex, sawMailHeader: &sawMailHeader) && sawMailHeader
            }
            var line = bytes[start..<newline]
            if line.last == 13 { line = line.dropLast() }
            if line.isEmpty { break }
            guard field(line, first: start == bytes.startIndex, sawMailHeader: &sawMailHeader) else { return false }
            start = newline + 1
        }
        return sawMailHeader
    }

    private static func field(_ line: ArraySlice<UInt8>, first: Bool, sawMailHeader: inout Bool) -> Bool {
        if let lead = line.first, lead == 32 || lead == 9 { return !first }
        guard let colon = line.firstIndex(of: 58), colon > line.startIndex,
              line[line.startIndex..<colon].allSatisfy({ (33...126).contains($0) })
        else { return false }
        if mailHeaders.contains(String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()) {
            sawMailHeader = true
        }
        return true
    }
}
