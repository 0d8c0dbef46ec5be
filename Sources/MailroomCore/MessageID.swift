/// A message's stable identity; never reused within one mailbox store.
public struct MessageID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// Parses the decimal form used in URLs and forms; nil for anything else.
    public init?(_ text: some StringProtocol) {
        // Digits only and no leading zero, so each message has exactly one spelling in URLs.
        guard let first = text.utf8.first, first != UInt8(ascii: "0"),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text)
        else { return nil }
        self.rawValue = value
    }

    public var description: String { String(rawValue) }

    public static func < (lhs: MessageID, rhs: MessageID) -> Bool { lhs.rawValue < rhs.rawValue }
}
