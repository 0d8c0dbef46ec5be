/// A search as a person typed it, understood: a syntax tree one level deep. Every part must
/// hold: each `Term` (a word or phrase to look for, or to leave out, maybe in one field), each
/// `cc:` filter, and the filters that are not words (`is:`, `has:`, `before:`, `after:`). The
/// store compiles it to SQL and to its full-text indexes' own syntax.
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
    /// The words and phrases to look for and to leave out, in the order typed.
    public private(set) var terms: [Term] = []
    /// `cc:` values: a message matches when its Cc header contains each wanted one and none of the
    /// unwanted ones (compared without case for ASCII). A wanted one is also a `recipients` term,
    /// so the words still drive the search.
    public private(set) var cc: [CCFilter] = []
    /// `tag:name` values: a message matches when it has each wanted tag and none of the
    /// unwanted ones (names compared without case, as tags are).
    public private(set) var tags: [TagFilter] = []

    /// True when there is a term to look for (not only ones to leave out): then the words drive
    /// the search, newest first.
    public var hasWords: Bool { terms.contains { !$0.isExcluded } }

    /// True when there is nothing at all to narrow by, as for an empty query or one of punctuation.
    public var isEmpty: Bool {
        !hasWords && isUnread == nil && isFlagged == nil && !hasAttachment && !hasHTML && before == nil && after == nil
            && tags.isEmpty
    }

    public init(_ text: String) throws(SearchQueryError) {
        self.text = text.trimmed
        hasAttachment = false
        hasHTML = false
        var terms: [Term] = []
        var reader = QueryReader(self.text)
        while let part = reader.next() {
            switch part.operator {
            case nil, .from?, .to?, .subject?, .cc?:
                guard let term = Term(part) else { continue }
                if part.operator == .cc {
                    cc.append(CCFilter(text: term.text, isExcluded: term.isExcluded))
                    // Leaving out a Cc is the header's business alone: a recipients term would
                    // also leave out mail with that name in To or the envelope.
                    if term.isExcluded { continue }
                }
                terms.append(term)
            case .tag?:
                guard let name = Tag.cleaned(part.text) else {
                    throw SearchQueryError("\"tag:\(part.shown)\" isn't a tag: tags are letters, digits, spaces, - _ . and @.")
                }
                tags.append(TagFilter(name: name, isExcluded: part.isExcluded))
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
        self.terms = terms
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
        ("tag:invoices", "messages tagged invoices (tag:\"two words\" for a name with a space)"),
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
}

/// Why a search could not be understood, as one sentence a person can act on.
public struct SearchQueryError: Error, Hashable, Sendable {
    public let message: String

    init(_ message: String) { self.message = message }
}

