/// A search as a person typed it, understood: the words go to SQLite's full-text indexes as FTS5
/// MATCH expressions, and `is:`, `has:`, `before:` and `after:` become filters on columns.
///
/// There are two indexes. `search` (unicode61) finds whole words and their prefixes. Scripts
/// written without spaces between words (Japanese, Chinese, Thai, ...) make one long token of a
/// whole run, so a word inside it is found through `search_cjk` (trigram), which finds any
/// substring of three characters or more: a term with such a script and at least three
/// characters goes there (`substrings`), every other term to `search` (`match`).
///
/// Odd input never fails: quotes, stars, dashes and colons that make no sense are read as text, and
/// text with nothing searchable in it is dropped. Parsing fails, with one sentence, only when an
/// operator's value is wrong or the query asks for something that cannot be run.
public struct SearchQuery: Hashable, Sendable {
    /// The query as typed, trimmed.
    public let text: String
    /// `is:unread` → true, `is:read` → false.
    public var isUnread: Bool?
    /// `is:flagged` → true, `is:unflagged` → false.
    public var isFlagged: Bool?
    /// `has:attachment`: the message lists an attachment (an inline image alone is not one).
    public var hasAttachment: Bool
    /// `has:html`: the message has an HTML body.
    public var hasHTML: Bool
    /// `before:2026-11-30`: that day's 00:00 UTC in Unix seconds; wanted messages are older.
    public var before: Int64?
    /// `after:2026-11-30`: that day's 00:00 UTC in Unix seconds; wanted messages are this old or newer.
    public var after: Int64?
    /// The FTS5 MATCH expression for the word parts, or nil when the query has no words
    /// (e.g. only `is:unread`). Every user token is written as an FTS5 string ("…" with " doubled),
    /// so nothing a person types can be read as FTS5 syntax.
    /// This is `words.expression`: nil when no wanted term goes to the word index, even if some
    /// left-out ones do (they are in `words.unwanted`).
    public var match: String? { words.expression }
    /// The terms for the word index, `search`.
    public private(set) var words = IndexTerms()
    /// The terms for the substring index, `search_cjk`: those with a script written without spaces
    /// and three characters or more, written without `*` (any substring matches already).
    public private(set) var substrings = IndexTerms()
    /// `cc:` values: a message matches when its Cc header contains each wanted one and none of the
    /// unwanted ones (compared without case for ASCII). A wanted one is also a `recipients` term
    /// of an index, so the index still drives the search.
    public private(set) var cc: [CCFilter] = []

    /// True when some index has a term to look for: the index drives the search, newest first.
    public var hasWords: Bool { !words.wanted.isEmpty || !substrings.wanted.isEmpty }

    /// True when there is nothing at all to narrow by, as for an empty query or one of punctuation.
    public var isEmpty: Bool {
        !hasWords && isUnread == nil && isFlagged == nil && !hasAttachment && !hasHTML && before == nil && after == nil
    }

    public init(_ text: String) throws(SearchQueryError) {
        self.text = text.trimmed
        hasAttachment = false
        hasHTML = false
        var terms: [SearchTerm] = []
        var reader = QueryReader(self.text)
        while let part = reader.next() {
            switch part.operator {
            case nil, .from?, .to?, .subject?, .cc?:
                guard let term = SearchTerm(part) else { continue }
                if part.operator == .cc {
                    cc.append(CCFilter(text: term.text, isExcluded: term.isExcluded))
                    // Leaving out a Cc is the header's business alone: the index's recipients
                    // also hold To and the envelope.
                    if term.isExcluded { continue }
                }
                terms.append(term)
            case .tag?:
                throw SearchQueryError("Tags can't be searched for yet: remove \"tag:\(part.shown)\".")
            case .is?:
                try applyIs(part)
            case .has?:
                try applyHas(part)
            case .before?, .after?:
                try applyDate(part)
            }
        }
        if let before, let after, after >= before {
            throw SearchQueryError("before: must be a later day than after:, or nothing can match.")
        }
        let wanted = terms.filter { !$0.isExcluded }
        if wanted.isEmpty && (!terms.isEmpty || cc.contains(where: \.isExcluded)) {
            throw SearchQueryError("A search can't only leave words out: add a word to look for.")
        }
        for term in terms {
            let expression = term.expression
            switch (term.isSubstring, term.isExcluded) {
            case (false, false): words.wanted.append(expression)
            case (false, true): words.unwanted.append(expression)
            case (true, false): substrings.wanted.append(expression)
            case (true, true): substrings.unwanted.append(expression)
            }
        }
    }

    /// The FTS5 terms a query gives one index.
    public struct IndexTerms: Hashable, Sendable {
        /// Each an FTS5 term (`"scan"*`, `author : "bob"*`); all must match.
        public var wanted: [String] = []
        /// Each an FTS5 term; none may match.
        public var unwanted: [String] = []

        /// Positive terms joined with AND, then each exclusion as NOT (FTS5 cannot run a NOT on
        /// its own); nil without a positive term.
        public var expression: String? {
            guard !wanted.isEmpty else { return nil }
            var expression = wanted.joined(separator: " AND ")
            for term in unwanted { expression += " NOT " + term }
            return expression
        }

        /// The exclusions joined with OR, for an index that does not drive the search: a message
        /// that matches this is left out. Nil without exclusions.
        public var anyUnwanted: String? { unwanted.isEmpty ? nil : unwanted.joined(separator: " OR ") }
    }

    /// One `cc:` value.
    public struct CCFilter: Hashable, Sendable {
        /// Starts and ends with a letter or digit.
        public var text: String
        public var isExcluded: Bool
    }

    /// The operators a person can type, one line each, for a help text beside the search field.
    public static let operators: [(syntax: String, meaning: String)] = [
        ("word", "the message contains the word"),
        ("scan*", "a word starting with scan"),
        ("\"paper jam\"", "these words, together and in this order"),
        ("-word", "leave out messages with the word"),
        ("from:name", "the sender's name or address contains name"),
        ("to:name", "a recipient's name or address contains name"),
        ("cc:name", "a Cc recipient's name or address contains name"),
        ("ann@example.com", "mail from or to that address"),
        ("subject:word", "the subject contains the word"),
        ("スキャン", "any three or more characters of Japanese, Chinese, Thai or Korean text, even inside a longer word"),
        ("is:unread", "unread messages (is:read for read ones)"),
        ("is:flagged", "flagged messages (is:unflagged for the others)"),
        ("has:attachment", "messages with an attachment (an inline image is not one)"),
        ("has:html", "messages with an HTML body"),
        ("after:2026-11-30", "received on or after that day (UTC)"),
        ("before:2026-11-30", "received before that day (UTC)"),
    ]

    // MARK: Operators that are not words

    private mutating func applyIs(_ part: QueryPart) throws(SearchQueryError) {
        let value = part.text.searchableCore.text.lowercased()
        switch value {
        case "unread", "read":
            let isUnread = (value == "unread") != part.isExcluded
            try Self.set(&self.isUnread, to: isUnread, conflict: "is:read and is:unread")
        case "flagged", "unflagged":
            let isFlagged = (value == "flagged") != part.isExcluded
            try Self.set(&self.isFlagged, to: isFlagged, conflict: "is:flagged and is:unflagged")
        default:
            throw SearchQueryError(
                "\"is:\(part.shown)\" isn't something to search for: "
                    + "use is:unread, is:read, is:flagged or is:unflagged.")
        }
    }

    private mutating func applyHas(_ part: QueryPart) throws(SearchQueryError) {
        let value = part.text.searchableCore.text.lowercased()
        guard value == "attachment" || value == "html" else {
            throw SearchQueryError("\"has:\(part.shown)\" isn't something to search for: use has:attachment or has:html.")
        }
        // The filters are Bools: "without" has no value to be.
        guard !part.isExcluded else {
            let what = value == "html" ? "an HTML body" : "attachments"
            throw SearchQueryError("Messages without \(what) can't be searched for: remove -has:\(value).")
        }
        if value == "html" { hasHTML = true } else { hasAttachment = true }
    }

    private mutating func applyDate(_ part: QueryPart) throws(SearchQueryError) {
        let name = part.operator == .before ? "before" : "after"
        guard let midnight = Self.startOfDay(part.text.searchableCore.text) else {
            throw SearchQueryError("\"\(name):\(part.shown)\" isn't a day: write it like \(name):2026-11-30.")
        }
        // "Not before a day" is "on or after it", and the other way round.
        if (part.operator == .before) != part.isExcluded {
            before = min(before ?? .max, midnight)  // both must hold: the earlier one wins
        } else {
            after = max(after ?? .min, midnight)
        }
    }

    private static func set(_ flag: inout Bool?, to value: Bool, conflict: String) throws(SearchQueryError) {
        if let flag, flag != value { throw SearchQueryError("\(conflict) can't both be true.") }
        flag = value
    }

    // MARK: The FTS5 expression

    /// `text` as an FTS5 string: in double quotes, with any double quote inside doubled.
    static func fts5String(_ text: some StringProtocol) -> String {
        var string = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" { string.unicodeScalars.append("\"") }
            string.unicodeScalars.append(scalar)
        }
        string.unicodeScalars.append("\"")
        return string
    }

    // MARK: Days

    /// 00:00 UTC at the start of a day written `2026-11-30` or `2026/11/30`, in Unix seconds, or nil
    /// when `text` is not such a day of the Gregorian calendar.
    static func startOfDay(_ text: some StringProtocol) -> Int64? {
        guard let separator = text.first(where: { $0 == "-" || $0 == "/" }) else { return nil }
        let fields = text.split(separator: separator, omittingEmptySubsequences: false)
        guard fields.count == 3,
            fields[0].count == 4, let year = decimal(fields[0]), year >= 1,
            (1...2).contains(fields[1].count), let month = decimal(fields[1]), (1...12).contains(month),
            (1...2).contains(fields[2].count), let day = decimal(fields[2]),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400
    }

    /// The value of ASCII digits only (`Int(_:)` would also take a sign).
    private static func decimal(_ digits: some StringProtocol) -> Int64? {
        var value: Int64 = 0
        for character in digits {
            guard let digit = character.asciiValue, (48...57).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - 48)
        }
        return value
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Why a search could not be understood, as one sentence a person can act on.
public struct SearchQueryError: Error, Hashable, Sendable {
    public let message: String

    init(_ message: String) { self.message = message }
}

/// The `name:` prefixes a query understands; any other `name:value` is text.
private enum SearchOperator: String, Sendable {
    case from, to, cc, subject, `is`, has, before, after, tag
}

/// One stretch of a query: a word, a quoted phrase, or an operator with its value, each maybe
/// preceded by `-`.
private struct QueryPart: Hashable, Sendable {
    var isExcluded: Bool
    var `operator`: SearchOperator?
    /// The word, the phrase or the operator's value as typed, without the quotes.
    var text: Substring
    /// A `*` came right after a closing quote.
    var isStarred: Bool
    /// In quotes: words wherever they are, even when they look like an address.
    var isQuoted = false

    /// `text` for an error message, with control characters and line breaks as spaces.
    var shown: String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.separatesWords ? " " : $0 }))
    }
}

/// Splits a query into parts at white space and at quotes.
///
/// It reads Unicode scalars, not characters: a quote followed by a combining accent is one
/// `Character`, but FTS5 would still see its quote.
private struct QueryReader {
    private let scalars: String.UnicodeScalarView
    private var index: String.Index

    init(_ text: String) {
        scalars = text.unicodeScalars
        index = scalars.startIndex
    }

    private var current: Unicode.Scalar? { index < scalars.endIndex ? scalars[index] : nil }

    mutating func next() -> QueryPart? {
        while true {
            while let scalar = current, scalar.separatesWords { advance() }
            guard current != nil else { return nil }
            let isExcluded = current == "-"
            if isExcluded { advance() }
            guard let first = current, !first.separatesWords else { continue }  // a lone "-"
            if first.isQuote {
                let (phrase, isStarred) = readPhrase()
                return QueryPart(isExcluded: isExcluded, text: phrase, isStarred: isStarred, isQuoted: true)
            }
            let word = readWord()
            guard let colon = word.unicodeScalars.firstIndex(of: ":"),
                let name = SearchOperator(rawValue: String(word.unicodeScalars[..<colon]).lowercased())
            else {
                return QueryPart(isExcluded: isExcluded, text: word, isStarred: false)
            }
            let value = Substring(word.unicodeScalars[word.unicodeScalars.index(after: colon)...])
            if value.isEmpty, let next = current, next.isQuote {
                let (phrase, isStarred) = readPhrase()
                return QueryPart(isExcluded: isExcluded, operator: name, text: phrase, isStarred: isStarred, isQuoted: true)
            }
            return QueryPart(isExcluded: isExcluded, operator: name, text: value, isStarred: false)
        }
    }

    private mutating func advance() { index = scalars.index(after: index) }

    /// Up to white space or a quote, which starts the next part.
    private mutating func readWord() -> Substring {
        let start = index
        while let scalar = current, !scalar.separatesWords, !scalar.isQuote { advance() }
        return Substring(scalars[start..<index])
    }

    /// From an opening quote to the closing one, or to the end when it is never closed, then any stars.
    private mutating func readPhrase() -> (Substring, isStarred: Bool) {
        advance()
        let start = index
        while let scalar = current, !scalar.isQuote { advance() }
        let phrase = Substring(scalars[start..<index])
        if current != nil { advance() }
        var isStarred = false
        while current == "*" {
            isStarred = true
            advance()
        }
        return (phrase, isStarred)
    }
}

/// A word or phrase to look for, or to leave out, with something searchable in it.
private struct SearchTerm: Hashable, Sendable {
    enum Column: String, Sendable {
        case subject, author, recipients
        /// A bare address: mail from or to it.
        case people = "{author recipients}"
    }

    var column: Column?
    /// Starts and ends with a letter or digit; white space inside is single spaces.
    var text: String
    var isPrefix: Bool
    var isExcluded: Bool
    /// For the substring index: a script written without spaces, and three characters or more
    /// (the trigram tokenizer finds nothing shorter).
    var isSubstring: Bool

    /// Nil when the part has no letter or digit in it, as for `*`, `""` or an emoji: FTS5 would read
    /// it as a phrase of no words, which matches nothing.
    init?(_ part: QueryPart) {
        let (core, endsWithStar) = part.text.searchableCore
        guard !core.isEmpty else { return nil }
        var text = ""
        var pendingSpace = false
        for scalar in core.unicodeScalars {
            if scalar.separatesWords {
                pendingSpace = true
                continue
            }
            if pendingSpace { text.unicodeScalars.append(" ") }
            pendingSpace = false
            text.unicodeScalars.append(scalar)
        }
        self.text = text
        isExcluded = part.isExcluded
        isPrefix = endsWithStar || part.isStarred
        switch part.operator {
        // People type part of a name or an address.
        case .from?: (column, isPrefix) = (.author, true)
        case .to?, .cc?: (column, isPrefix) = (.recipients, true)
        case .subject?: column = .subject
        default: column = !part.isQuoted && Self.isAddress(text) ? .people : nil
        }
        isSubstring = text.unicodeScalars.count >= 3 && text.unicodeScalars.contains(where: \.isWrittenWithoutSpaces)
        if isSubstring { isPrefix = false }
    }

    /// `name@domain`: one word with an `@` that has a letter or digit on both sides.
    private static func isAddress(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.contains(" "), let at = scalars.firstIndex(of: "@") else { return false }
        return at > 0 && at < scalars.count - 1
    }

    /// `"scan"*`, `author : "bob"*`, `subject : "two words"`.
    var expression: String {
        let string = SearchQuery.fts5String(text) + (isPrefix ? "*" : "")
        guard let column else { return string }
        return column.rawValue + " : " + string
    }
}

extension Unicode.Scalar {
    /// A character of a script written without spaces between words, which SQLite's unicode61
    /// tokenizer keeps in one token with its whole run: Thai, Lao, Myanmar, Khmer, Hangul
    /// (Korean particles join their word), kana, CJK ideographs and their punctuation. All are at
    /// U+0E00 or above, so their UTF-8 starts with a byte of 0xE0 or more.
    public var isWrittenWithoutSpaces: Bool {
        switch value {
        case 0x0E00...0x0EFF,  // Thai, Lao
            0x1000...0x109F,  // Myanmar
            0x1100...0x11FF,  // Hangul Jamo
            0x1780...0x17FF, 0x19E0...0x19FF,  // Khmer
            0x2E80...0x2FDF,  // CJK radicals
            0x3000...0x9FFF,  // CJK punctuation, kana, Bopomofo, Hangul compatibility, ideographs
            0xA960...0xA97F, 0xAC00...0xD7FF,  // Hangul
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFF00...0xFFEF,  // full-width and half-width forms
            0x20000...0x3FFFF:  // CJK extensions
            true
        default:
            false
        }
    }
}

private extension Unicode.Scalar {
    /// Ends a word: white space, and control characters, which FTS5 cannot take inside a string
    /// (a NUL ends it early).
    var separatesWords: Bool { properties.isWhitespace || properties.generalCategory == .control }

    /// Straight quotes, and the curly ones phones type in their place.
    var isQuote: Bool { self == "\"" || self == "\u{201C}" || self == "\u{201D}" }

    /// A letter, a digit or a private-use character: what SQLite's unicode61 tokenizer keeps as a
    /// token. Everything else separates tokens, or (accents) is removed from them.
    var isSearchable: Bool {
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }
}

private extension Unicode.GeneralCategory {
    var isMark: Bool { self == .nonspacingMark || self == .spacingMark || self == .enclosingMark }
}

private extension Substring {
    /// The text from the first to the last searchable scalar, and whether a `*` followed the last
    /// one (`scan*`, `scan*)` and `scan.*` all ask for a prefix).
    var searchableCore: (text: Substring, endsWithStar: Bool) {
        guard let first = unicodeScalars.firstIndex(where: \.isSearchable),
            let last = unicodeScalars.lastIndex(where: \.isSearchable)
        else { return ("", false) }
        var end = unicodeScalars.index(after: last)
        // The marks after a last letter of such a script are part of it (a Thai vowel or tone
        // mark): the substring index compares characters as they are.
        if unicodeScalars[first...last].contains(where: \.isWrittenWithoutSpaces) {
            while end < unicodeScalars.endIndex, unicodeScalars[end].properties.generalCategory.isMark {
                end = unicodeScalars.index(after: end)
            }
        }
        return (Substring(unicodeScalars[first..<end]), unicodeScalars[end...].contains("*"))
    }
}
