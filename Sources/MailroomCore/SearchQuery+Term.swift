extension SearchQuery {
    /// A word or phrase to look for, or to leave out, with something searchable in it: a leaf of
    /// the query, which every message found must match (or, left out, must not).
    public struct Term: Hashable, Sendable {
        /// Where a term is looked for; a term with no field is looked for everywhere.
        public enum Field: Hashable, Sendable {
            case subject
            /// The sender's name and address (`from:`).
            case author
            /// The recipients' names and addresses (`to:`, `cc:`).
            case recipients
            /// The sender or a recipient: what a bare address asks for.
            case authorOrRecipients
        }

        public var field: Field?
        /// Starts and ends with a letter or digit; white space inside is single spaces, and a
        /// term with spaces is a phrase: its words, together and in this order.
        public var text: String
        /// The last word may go on (`scan*`, and every `from:`, `to:` and `cc:`).
        public var isPrefix: Bool
        /// `-word`: a message with it is left out.
        public var isExcluded: Bool
        /// Written in a script without spaces (`isWrittenWithoutSpaces`) and three characters
        /// or more: found anywhere inside a longer run of text, not only as a whole word. Never
        /// a prefix, since any substring matches already.
        public var isSubstring: Bool

        init(_ text: String, field: Field? = nil, isPrefix: Bool = false, isExcluded: Bool = false, isSubstring: Bool = false) {
            self.text = text
            self.field = field
            self.isPrefix = isPrefix
            self.isExcluded = isExcluded
            self.isSubstring = isSubstring
        }

        /// Nil when the part has no letter or digit in it, as for `*`, `""` or an emoji: a phrase
        /// of no words, which would match nothing.
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
            case .from?: (field, isPrefix) = (.author, true)
            case .to?, .cc?: (field, isPrefix) = (.recipients, true)
            case .subject?: field = .subject
            default: field = !part.isQuoted && Self.isAddress(text) ? .authorOrRecipients : nil
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
    }

    /// One `tag:` value: a valid tag name (`Tag.cleaned`).
    public struct TagFilter: Hashable, Sendable {
        public var name: String
        public var isExcluded: Bool

        public init(name: String, isExcluded: Bool) {
            self.name = name
            self.isExcluded = isExcluded
        }
    }

    /// One `cc:` value.
    public struct CCFilter: Hashable, Sendable {
        /// Starts and ends with a letter or digit.
        public var text: String
        public var isExcluded: Bool
    }
}
