import MailroomCore

/// A `SearchQuery`'s terms compiled to FTS5 MATCH expressions, one set for each full-text index.
///
/// There are two indexes. `search` (unicode61) finds whole words and their prefixes. Scripts
/// written without spaces between words (Japanese, Chinese, Thai, ...) make one long token of a
/// whole run, so a word inside it is found through `search_cjk` (trigram), which finds any
/// substring of three characters or more: a substring term (`Term.isSubstring`) goes there
/// (`substrings`), every other term to `search` (`words`).
///
/// Every term's text is written as an FTS5 string ("…" with " doubled), so nothing a person
/// types can be read as FTS5 syntax.
struct FTS5Query: Hashable, Sendable {
    /// The terms for the word index, `search`.
    var words = IndexTerms()
    /// The terms for the substring index, `search_cjk`, written without `*` (any substring
    /// matches already).
    var substrings = IndexTerms()

    init(_ query: SearchQuery) {
        for term in query.terms {
            let expression = Self.expression(term)
            switch (term.isSubstring, term.isExcluded) {
            case (false, false): words.wanted.append(expression)
            case (false, true): words.unwanted.append(expression)
            case (true, false): substrings.wanted.append(expression)
            case (true, true): substrings.unwanted.append(expression)
            }
        }
    }

    /// The word index's expression, `words.expression`: nil when no wanted term goes to the word
    /// index, even if some left-out ones do (they are in `words.unwanted`).
    var match: String? { words.expression }

    /// The FTS5 terms a query gives one index.
    struct IndexTerms: Hashable, Sendable {
        /// Each an FTS5 term (`"scan"*`, `author : "bob"*`); all must match.
        var wanted: [String] = []
        /// Each an FTS5 term; none may match.
        var unwanted: [String] = []

        /// Positive terms joined with AND, then each exclusion as NOT (FTS5 cannot run a NOT on
        /// its own); nil without a positive term.
        var expression: String? {
            guard !wanted.isEmpty else { return nil }
            var expression = wanted.joined(separator: " AND ")
            for term in unwanted { expression += " NOT " + term }
            return expression
        }

        /// The exclusions joined with OR, for an index that does not drive the search: a message
        /// that matches this is left out. Nil without exclusions.
        var anyUnwanted: String? { unwanted.isEmpty ? nil : unwanted.joined(separator: " OR ") }
    }

    /// `"scan"*`, `author : "bob"*`, `subject : "two words"`, `{author recipients} : "a@b.c"`.
    static func expression(_ term: SearchQuery.Term) -> String {
        let string = self.string(term.text) + (term.isPrefix ? "*" : "")
        guard let field = term.field else { return string }
        return column(field) + " : " + string
    }

    /// The index column (or, in braces, the columns) that holds `field`.
    static func column(_ field: SearchQuery.Term.Field) -> String {
        switch field {
        case .subject: "subject"
        case .author: "author"
        case .recipients: "recipients"
        case .authorOrRecipients: "{author recipients}"
        }
    }

    /// `text` as an FTS5 string: in double quotes, with any double quote inside doubled.
    static func string(_ text: some StringProtocol) -> String {
        var string = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" { string.unicodeScalars.append("\"") }
            string.unicodeScalars.append(scalar)
        }
        string.unicodeScalars.append("\"")
        return string
    }
}
