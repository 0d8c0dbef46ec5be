private import CSQLite
import MailroomCore

/// What the search index is given of a text: the text itself, less any run of ASCII letters and
/// digits longer than `longestWord` bytes.
///
/// Such a run is no word anyone types into a search box: it is a base64 or hex blob, a line of
/// one repeated character, a key. Left in, it costs the index a pass over every byte of it for
/// nothing (unicode61 folds it character by character, then FTS5 hashes, compares and stores it
/// as one term); a mail of 100 KB on one line took longer to index than to store. The limit is
/// the one Lucene's standard tokenizer uses by default (255). Runs with any other byte in them
/// (accents, other scripts) are never dropped: only the plain ASCII case is known to be junk.
///
/// The triggers that add a body to the index and take it out again both pass it through
/// `searchable(...)` (schema 7), so what goes in is exactly what comes out.
enum SearchText {
    static let longestWord = 255

    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte &- 48) < 10 || ((byte | 0x20) &- 97) < 26
    }

    /// Whether all eight bytes of `word` are word bytes, tested at once: each byte is ASCII
    /// (high bit clear), so adding `0x80 - m` to it sets its high bit exactly when it is at least
    /// `m`, and never carries into the next byte.
    static func allWordBytes(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return false }
        func atLeast(_ bytes: UInt64, _ bound: UInt8) -> UInt64 { (bytes &+ ones &* UInt64(0x80 - bound)) & high }
        let folded = word | (ones &* 0x20)
        let digits = atLeast(word, 0x30) & ~atLeast(word, 0x3A)
        let letters = atLeast(folded, 0x61) & ~atLeast(folded, 0x7B)
        return digits | letters == high
    }

    /// The runs of word bytes longer than `longestWord`, in order.
    ///
    /// Looks `longestWord` bytes ahead of where a run could start: a separator there rules out
    /// a long run through it with one comparison, so ordinary prose costs about one look per
    /// word instead of one per byte.
    static func longRuns(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        while start + longestWord < bytes.count {
            let probe = start + longestWord
            guard isWordByte(bytes[probe]) else {
                start = probe + 1
                continue
            }
            var back = probe - 1
            while back >= start && isWordByte(bytes[back]) { back -= 1 }
            guard back < start else {
                start = back + 1
                continue
            }
            var end = probe + 1
            // A long run is usually far longer (a blob of 100 KB): eight bytes a step.
            if let base = UnsafeRawPointer(bytes.baseAddress) {
                while end + 8 <= bytes.count && allWordBytes(base.loadUnaligned(fromByteOffset: end, as: UInt64.self)) { end += 8 }
            }
            while end < bytes.count && isWordByte(bytes[end]) { end += 1 }
            runs.append(start..<end)
            start = end + 1
        }
        return runs
    }

    /// `bytes` with each of `runs` replaced by one space (so the words on either side stay apart).
    static func removing(_ runs: [Range<Int>], from bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count - runs.reduce(0) { $0 + $1.count } + runs.count)
        var from = 0
        for run in runs {
            kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<run.lowerBound]))
            kept.append(0x20)
            from = run.upperBound
        }
        kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
        return kept
    }

    /// What the index is given of `text` (for tests and callers outside SQL).
    static func searchable(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            let runs = longRuns(in: bytes)
            return runs.isEmpty ? String(decoding: bytes, as: UTF8.self) : String(decoding: removing(runs, from: bytes), as: UTF8.self)
        }
    }

    /// Makes `searchable(text)` and `spaceless(text)` callable from SQL on `handle`.
    static func register(on handle: OpaquePointer) -> Int32 {
        let code = registerSearchable(on: handle)
        return code == SQLITE_OK ? registerSpaceless(on: handle) : code
    }

    /// Makes `searchable(text)` callable from SQL on `handle`: deterministic, and harmless in a
    /// view or trigger. Anything but text (NULL) comes back as it went in.
    static func registerSearchable(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(
            handle, "searchable", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, count, arguments in
                guard count == 1, let argument = arguments?[0] else { return }
                guard sqlite3_value_type(argument) == SQLITE_TEXT, let text = sqlite3_value_text(argument) else {
                    sqlite3_result_value(context, argument)
                    return
                }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument)))
                let runs = SearchText.longRuns(in: bytes)
                guard !runs.isEmpty else {
                    sqlite3_result_value(context, argument)
                    return
                }
                let kept = SearchText.removing(runs, from: bytes)
                kept.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { characters in
                        sqlite3_result_text(context, characters.baseAddress, Int32(characters.count), mailroom_sqlite_transient())
                    }
                }
            },
            nil, nil, nil)
    }

    // MARK: The substring index

    /// What the substring index (`search_cjk`, trigram) is given of a text: the text with each run
    /// of white space and control characters as one space (as a query's terms are written), when
    /// it has a character of a script written without spaces (`isWrittenWithoutSpaces`); else
    /// nothing (""), so the index holds no text that the word index finds already. Every such
    /// character is U+0E00 or above, three bytes or more in UTF-8 starting with 0xE0 or more: a
    /// text without such a byte, almost all mail outside those languages, is passed over at once.
    static func spaceless(_ text: String) -> String {
        var text = text
        return text.withUTF8 { spaceless($0) } ?? ""
    }

    /// `spaceless` of UTF-8 `bytes`; nil for "".
    static func spaceless(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.contains(where: { $0 >= 0xE0 }) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: \.isWrittenWithoutSpaces) else { return nil }
        var collapsed = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if separatesWords(scalar) {
                pendingSpace = true
                continue
            }
            if pendingSpace && !collapsed.isEmpty { collapsed.append(" ") }
            pendingSpace = false
            collapsed.append(scalar)
        }
        return String(collapsed)
    }

    /// White space (Unicode's White_Space, a fixed list) or a control character: what a query's
    /// terms turn into single spaces too. Spelled out, since a look-up of the scalar's properties
    /// for each of millions of characters took a good part of the cost of indexing Japanese mail.
    static func separatesWords(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x20, 0x7F...0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Whether any of `texts` gives the substring index something.
    static func needsSubstrings(_ texts: String...) -> Bool {
        texts.contains { !spaceless($0).isEmpty }
    }

    /// Makes `spaceless(text)` callable from SQL on `handle`; anything but text gives "".
    static func registerSpaceless(on handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(
            handle, "spaceless", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, count, arguments in
                guard count == 1, let argument = arguments?[0], sqlite3_value_type(argument) == SQLITE_TEXT,
                      let text = sqlite3_value_text(argument),
                      let found = SearchText.spaceless(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument))))
                else {
                    sqlite3_result_text(context, "", 0, mailroom_sqlite_transient())
                    return
                }
                var kept = found
                kept.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { characters in
                        sqlite3_result_text(context, characters.baseAddress, Int32(characters.count), mailroom_sqlite_transient())
                    }
                }
            },
            nil, nil, nil)
    }
}
