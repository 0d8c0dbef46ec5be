/// The `name:` prefixes a query understands; any other `name:value` is text.
enum SearchOperator: String, Sendable {
    case from, to, cc, subject, `is`, has, before, after, tag
}

/// One stretch of a query: a word, a quoted phrase, or an operator with its value, each maybe
/// preceded by `-`.
struct QueryPart: Hashable, Sendable {
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
/// `Character`, but the quote in it must still end a phrase, or an index would read it as text.
struct QueryReader {
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
