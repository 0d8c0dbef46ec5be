/// What a person typed for a new or edited message, before it is checked.
public struct Draft: Hashable, Sendable {
    public var subject: String
    public var body: String
    public var author: String

    public static let maximumSubjectLength = 200
    public static let maximumBodyLength = 10_000
    public static let maximumAuthorLength = 100

    public init(subject: String, body: String = "", author: String = "") {
        self.subject = subject
        self.body = body
        self.author = author
    }

    /// The draft with surrounding white space trimmed, or every problem found in it.
    public func validated() throws(DraftError) -> Draft {
        let trimmed = Draft(subject: subject.trimmed, body: body.trimmedTrailing, author: author.trimmed)
        var problems: [DraftError.Problem] = []
        if trimmed.subject.isEmpty { problems.append(.subjectEmpty) }
        if trimmed.subject.count > Self.maximumSubjectLength { problems.append(.subjectTooLong) }
        if trimmed.body.count > Self.maximumBodyLength { problems.append(.bodyTooLong) }
        if trimmed.author.count > Self.maximumAuthorLength { problems.append(.authorTooLong) }
        guard problems.isEmpty else { throw DraftError(problems: problems) }
        return trimmed
    }
}

/// Every reason a draft was refused, in the order of the form's fields.
public struct DraftError: Error, Hashable, Sendable {
    public enum Problem: Hashable, Sendable {
        case subjectEmpty, subjectTooLong, bodyTooLong, authorTooLong

        /// A sentence a person can act on.
        public var message: String {
            switch self {
            case .subjectEmpty: "Subject can't be empty."
            case .subjectTooLong: "Subject is too long: at most \(Draft.maximumSubjectLength) characters."
            case .bodyTooLong: "Message is too long: at most \(Draft.maximumBodyLength) characters."
            case .authorTooLong: "Name is too long: at most \(Draft.maximumAuthorLength) characters."
            }
        }
    }

    public let problems: [Problem]
}

extension String {
    /// Without whitespace at either end; the string itself when it has none there (every search
    /// asks this of its words).
    var trimmed: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return first == startIndex && index(after: last) == endIndex ? self : String(self[first...last])
    }

    var trimmedTrailing: String {
        guard let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return index(after: last) == endIndex ? self : String(self[...last])
    }
}
