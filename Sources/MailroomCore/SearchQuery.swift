/// A search as a person typed it, understood: the words go to SQLite's full-text index as an FTS5
/// MATCH expression, and `is:`, `has:`, `before:` and `after:` become filters on columns.
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
    /// `has:attachment`.
    public var hasAttachment: Bool
    /// `before:2026-11-30`: that day's 00:00 UTC in Unix seconds; wanted messages are older.
    public var before: Int64?
    /// `after:2026-11-30`: that day's 00:00 UTC in Unix seconds; wanted messages are this old or newer.
    public var after: Int64?
    /// The FTS5 MATCH expression for the word parts, or nil when the query has no words
    /// (e.g. only `is:unread`). Every user token is written as an FTS5 string ("…" with " doubled),
    /// so nothing a person types can be read as FTS5 syntax.
    public private(set) var match: String?

    /// True when there is nothing at all to narrow by, as for an empty query or one of punctuation.
    public var isEmpty: Bool {
        match == nil && isUnread == nil && isFlagged == nil && !hasAttachment && before == nil && after == nil
    }

    public init(_ text: String) throws(SearchQueryError) {
        self.text = text.trimmed
        hasAttachment = false
        var terms: [SearchTerm] = []
        var reader = QueryReader(self.text)
        while let part = reader.next() {
            switch part.operator {
            case nil, .from?, .to?, .subject?:
                if let term = SearchTerm(part) { terms.append(term) }
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
        match = try Self.expression(terms)
    }

    /// The operators a person can type, one line each, for a help text beside the search field.
    public static let operators: [(syntax: String, meaning: String)] = [
        ("word", "the message contains the word"),
        ("scan*", "a word starting with scan"),
        ("\"paper jam\"", "these words, together and in this order"),
        ("-word", "leave out messages with the word"),
        ("from:name", "the sender's name or address contains name"),
        ("to:name", "a recipient's name or address contains name"),
        ("subject:word", "the subject contains the word"),
        ("is:unread", "unread messages (is:read for read ones)"),
        ("is:flagged", "flagged messages (is:unflagged for the others)"),
        ("has:attachment", "messages with an attachment"),
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
        guard part.text.searchableCore.text.lowercased() == "attachment" else {
            throw SearchQueryError("\"has:\(part.shown)\" isn't something to search for: use has:attachment.")
        }
        // The filter is a Bool: "without attachments" has no value to be.
        guard !part.isExcluded else {
            throw SearchQueryError("Messages without attachments can't be searched for: remove -has:attachment.")
        }
        hasAttachment = true
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

    /// Positive terms joined with AND, then each exclusion as NOT: FTS5 cannot run a NOT on its own.
    private static func expression(_ terms: [SearchTerm]) throws(SearchQueryError) -> String? {
        let wanted = terms.filter { !$0.isExcluded }
        let unwanted = terms.filter(\.isExcluded)
        guard !wanted.isEmpty else {
            guard unwanted.isEmpty else {
                throw SearchQueryError("A search can't only leave words out: add a word to look for.")
            }
            return nil
        }
        var expression = wanted.map(\.expression).joined(separator: " AND ")
        for term in unwanted { expression += " NOT " + term.expression }
        return expression
    }

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
    case from, to, subject, `is`, has, before, after
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
                return QueryPart(isExcluded: isExcluded, text: phrase, isStarred: isStarred)
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
                return QueryPart(isExcluded: isExcluded, operator: name, text: phrase, isStarred: isStarred)
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
    }

    var column: Column?
    /// Starts and ends with a letter or digit; white space inside is single spaces.
    var text: String
    var isPrefix: Bool
    var isExcluded: Bool

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
        case .to?: (column, isPrefix) = (.recipients, true)
        case .subject?: column = .subject
        default: column = nil
        }
    }

    /// `"scan"*`, `author : "bob"*`, `subject : "two words"`.
    var expression: String {
        let string = SearchQuery.fts5String(text) + (isPrefix ? "*" : "")
        guard let column else { return string }
        return column.rawValue + " : " + string
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

private extension Substring {
    /// The text from the first to the last searchable scalar, and whether a `*` followed the last
    /// one (`scan*`, `scan*)` and `scan.*` all ask for a prefix).
    var searchableCore: (text: Substring, endsWithStar: Bool) {
        guard let first = unicodeScalars.firstIndex(where: \.isSearchable),
            let last = unicodeScalars.lastIndex(where: \.isSearchable)
        else { return ("", false) }
        let after = unicodeScalars[unicodeScalars.index(after: last)...]
        return (Substring(unicodeScalars[first...last]), after.contains("*"))
    }
}
