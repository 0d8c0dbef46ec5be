import HTTP

/// Mailpit's search words, said in Mailroom's grammar (see `SearchQuery.operators`), or refused
/// with a sentence that names what Mailroom cannot do. Mailpit splits a query at spaces outside
/// double quotes, drops the quotes, and leaves a term out when it starts with `-` or `!`.
enum MailpitSearch {
    static func translate(_ query: String) throws(HTTPError) -> String {
        var out: [String] = []
        for token in tokens(of: query) {
            var word = Substring(token)
            var isExcluded = false
            if word.count > 1, let first = word.first, first == "-" || first == "!" {
                isExcluded = true
                word = word.dropFirst()
            }
            let sign = isExcluded ? "-" : ""
            guard let colon = word.firstIndex(of: ":") else {
                out.append(sign + quoted(word))
                continue
            }
            let name = word[..<colon].lowercased()
            let value = word[word.index(after: colon)...]
            guard !value.isEmpty else { continue }
            switch name {
            case "from", "to", "cc", "subject", "tag":
                out.append(sign + name + ":" + quoted(value))
            case "bcc":
                // Mailroom keeps every envelope recipient; a Bcc is one of those.
                out.append(sign + "to:" + quoted(value))
            case "addressed":
                guard !isExcluded, value.contains("@"), !value.contains(" ") else {
                    throw refusal("“addressed:” needs a whole address here (such as addressed:ann@example.com), and cannot be left out")
                }
                out.append(String(value))
            case "is":
                switch value.lowercased() {
                case "read", "unread": out.append(sign + "is:" + value.lowercased())
                default: throw refusal("“is:\(value)” is not something Mailroom can search for; is:read and is:unread are")
                }
            case "has":
                switch value.lowercased() {
                case "attachment" where !isExcluded, "attachments" where !isExcluded: out.append("has:attachment")
                default: throw refusal("Only has:attachment can be searched for here, and it cannot be left out")
                }
            case "after", "before":
                guard !isExcluded, isDay(value) else {
                    throw refusal("“\(name):” takes a day written as 2026-11-30 here, and cannot be left out")
                }
                out.append(name + ":" + value)
            case "message-id", "reply-to", "larger", "smaller":
                throw refusal("Mailroom cannot search by “\(name):” yet")
            default:
                // Not an operator: Mailpit searches the text as it is.
                out.append(sign + quoted(word))
            }
        }
        return out.joined(separator: " ")
    }

    /// The query's terms: split at spaces outside double quotes, every quote then dropped.
    static func tokens(of query: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inQuotes = false
        for character in query {
            if character == "\"" {
                inQuotes.toggle()
            } else if character == " " && !inQuotes {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    private static func quoted(_ value: Substring) -> String {
        value.contains(" ") ? "\"" + value + "\"" : String(value)
    }

    private static func isDay(_ value: Substring) -> Bool {
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].count == 4 && parts[1].count == 2 && parts[2].count == 2
            && parts.allSatisfy { $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    private static func refusal(_ sentence: String) -> HTTPError {
        HTTPError(.badRequest, sentence + ".")
    }
}
