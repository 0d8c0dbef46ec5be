import MailroomCore
import MailroomStore

/// How mail is tagged as it arrives: by its `X-Tags` header (always, as Mailpit does), by the
/// `+tag` part of its recipients' addresses (when asked: Mailroom routes by them too), and by
/// rules that give a tag to mail a search matches.
public struct Tagging: Sendable {
    public var plusAddresses: Bool
    public var rules: [TagRule]

    public init(plusAddresses: Bool = false, rules: [TagRule] = []) {
        self.plusAddresses = plusAddresses
        self.rules = rules
    }

    /// The tags `mail` comes with before the rules: its header's, then its addresses'.
    func tags(of mail: IncomingMail, recipients: [String]) -> [String] {
        guard plusAddresses else { return mail.tags }
        return Tag.unique(mail.tags + recipients.flatMap(Tag.plusTags(of:)))
    }
}

/// One line of a `--tag-rules` file: `invoice, accounts = subject:invoice has:attachment` gives
/// the tags on the left to new mail that the search on the right finds.
public struct TagRule: Sendable, Equatable {
    public var tags: [String]
    public var query: SearchQuery

    public init(tags: [String], query: SearchQuery) {
        self.tags = tags
        self.query = query
    }

    public static let maximumRules = 500

    /// The rules of a file's text; `#` starts a comment line, and blank lines are skipped. A
    /// line that is not a rule is refused with its number and why, so nothing half-works.
    public static func rules(in text: String) throws(TagRuleError) -> [TagRule] {
        var rules: [TagRule] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: [" ", "\t", "\r"])
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let number = index + 1
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw TagRuleError(line: number, "write a rule as “tag1, tag2 = search”.")
            }
            let tags = Tag.list(trimmed[..<equals])
            guard !tags.isEmpty else {
                throw TagRuleError(line: number, "name a tag before “=” (letters, digits, spaces, - _ . and @).")
            }
            let search = String(trimmed[trimmed.index(after: equals)...])
            let query: SearchQuery
            do throws(SearchQueryError) {
                query = try SearchQuery(search)
            } catch {
                throw TagRuleError(line: number, error.message)
            }
            guard !query.isEmpty else { throw TagRuleError(line: number, "write a search after “=”: it would match all mail.") }
            // Each rule is one search of each new message, inside its commit.
            guard rules.count < maximumRules else { throw TagRuleError(line: number, "at most \(maximumRules) rules are read.") }
            rules.append(TagRule(tags: tags, query: query))
        }
        return rules
    }
}

/// Why a tag rules file was refused: the line, and what is wrong with it.
public struct TagRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let reason: String

    init(line: Int, _ reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}

extension String.SubSequence {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> Substring {
        var text = self[...]
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
