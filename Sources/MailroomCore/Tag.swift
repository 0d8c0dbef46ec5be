/// Tags: labels a message can have any number of, beside the one mailbox it is in.
///
/// Names follow Mailpit's rules, so mail tagged there means the same here: letters and digits of
/// ASCII, space, `-`, `_`, `.` and `@`; anything else becomes a space, runs of spaces become one,
/// the ends are trimmed, and at most 100 bytes are kept. Names are one tag whatever their case:
/// `Invoices` and `invoices` are the same tag, spelled as it was first stored.
public enum Tag {
    public static let maximumLength = 100

    /// `name` made a valid tag name, or nil when nothing of it is left.
    public static func cleaned(_ name: some StringProtocol) -> String? {
        var out = ""
        var pendingSpace = false
        for scalar in name.unicodeScalars {
            guard isAllowed(scalar), scalar != " " else {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                guard out.utf8.count + 1 < maximumLength else { break }
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            guard out.utf8.count < maximumLength else { break }
            out.unicodeScalars.append(scalar)
        }
        return out.isEmpty ? nil : out
    }

    /// Whether `name` is already a valid tag name (as `cleaned` would leave it).
    public static func isValid(_ name: String) -> Bool {
        cleaned(name) == name
    }

    /// The tags of a comma-separated list such as an `X-Tags` header, cleaned, each once.
    public static func list(_ text: some StringProtocol) -> [String] {
        unique(text.split(separator: ",").compactMap { cleaned($0) })
    }

    /// `names` without a second spelling of any (the first one stays), in their order.
    public static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The tags an address carries after a `+` in its local part: `scan+invoices+2026@x` has
    /// `invoices` and `2026`.
    public static func plusTags(of address: String) -> [String] {
        let local = address.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard local.contains("+") else { return [] }
        return unique(local.split(separator: "+", omittingEmptySubsequences: false).dropFirst().compactMap { cleaned($0) })
    }

    /// The search that finds a tag: `tag:name`, or `tag:"two words"`.
    public static func search(for name: String) -> String {
        name.contains(" ") ? "tag:\"\(name)\"" : "tag:\(name)"
    }

    /// `names` sorted as lists show tags: by name, without regard to case.
    public static func sorted(_ names: [String]) -> [String] {
        names.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", " ", "-", "_", ".", "@": true
        default: false
        }
    }
}

/// A tag with how many messages have it (in one mailbox, or outside Trash).
public struct TagSummary: Hashable, Sendable {
    public var name: String
    public var count: Int
    public var unreadCount: Int

    public init(name: String, count: Int, unreadCount: Int) {
        self.name = name
        self.count = count
        self.unreadCount = unreadCount
    }
}
