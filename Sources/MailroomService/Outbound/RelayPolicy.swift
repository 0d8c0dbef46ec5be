import MailroomCore

/// Who mail may go out to, and what goes out on its own. Nothing leaves unless a relay is
/// configured and the address matches one of `allowedRecipients`: an empty list sends nothing,
/// so a test box can never mail the world by accident.
public struct RelayPolicy: Sendable {
    /// Each a regular expression that must match a whole address, without regard to case.
    public var allowedRecipients: [String]
    /// Pass every arriving message on to its recipients (those allowed).
    public var relayAll: Bool
    /// Pass on arriving mail that this search finds in the mailbox it lands in.
    public var relayMatching: SearchQuery?
    /// The name in the `Received:` line Mailroom adds on top of what it sends.
    public var hostName: String

    public init(allowedRecipients: [String], relayAll: Bool = false, relayMatching: SearchQuery? = nil, hostName: String = "mailroom") {
        self.allowedRecipients = allowedRecipients
        self.relayAll = relayAll
        self.relayMatching = relayMatching
        self.hostName = hostName
        self.compiled = AllowList(allowedRecipients)
    }

    /// The patterns compiled once (a pattern that does not compile matches nothing; `problem`
    /// finds it at start).
    private let compiled: AllowList

    /// Whether `address` may be sent to.
    public func allows(_ address: String) -> Bool {
        compiled.matches(address)
    }

    /// Checks that each pattern compiles: the reason for the first that does not, or nil.
    public static func problem(in patterns: [String]) -> String? {
        for pattern in patterns {
            do {
                _ = try Regex(pattern)
            } catch {
                return "“\(pattern)” is not a regular expression: \(error)"
            }
        }
        return nil
    }

    /// The addresses typed into a Release or Forward form (or an API's `to`): separated by
    /// commas, semicolons or white space; each must look like an address and be allowed.
    public func recipients(in text: String) throws(ServiceError) -> [String] {
        let parts = text.split { $0 == "," || $0 == ";" || $0.isWhitespace }.map(String.init)
        guard !parts.isEmpty else { throw .badInput("Write at least one address to send to.") }
        guard parts.count <= Self.maximumRecipients else {
            throw .badInput("At most \(Self.maximumRecipients) addresses at once.")
        }
        var seen: Set<String> = []
        var addresses: [String] = []
        for part in parts {
            let address = part.hasPrefix("<") && part.hasSuffix(">") ? String(part.dropFirst().dropLast()) : part
            guard Self.looksLikeAddress(address) else { throw .badInput("“\(address)” is not an email address.") }
            guard allows(address) else {
                throw .refused(allowedRecipients.isEmpty
                    ? "Mailroom sends no mail out: --relay-allow-to names no address it may go to."
                    : "“\(address)” is not an address Mailroom may send to (see --relay-allow-to).")
            }
            if seen.insert(address.lowercased()).inserted { addresses.append(address) }
        }
        return addresses
    }

    public static let maximumRecipients = 50

    /// `local@domain` of printable characters, no spaces, no brackets, within RFC 5321's length.
    static func looksLikeAddress(_ text: String) -> Bool {
        guard text.utf8.count <= 254, let at = text.lastIndex(of: "@"), at != text.startIndex,
              text.index(after: at) != text.endIndex
        else { return false }
        return text.unicodeScalars.allSatisfy { $0.value > 32 && $0.value != 127 && !"<>()[],;:\\\"".unicodeScalars.contains($0) }
    }
}

/// Compiled regular expressions, never changed after they are made: safe to read from any thread.
private final class AllowList: @unchecked Sendable {
    private let patterns: [Regex<AnyRegexOutput>]

    init(_ sources: [String]) {
        patterns = sources.compactMap { try? Regex($0).ignoresCase() }
    }

    func matches(_ address: String) -> Bool {
        patterns.contains { address.wholeMatch(of: $0) != nil }
    }
}
