/// Header fields in arrival order; names compare without regard to case.
///
/// A field whose name is not a token, or whose value holds a CR, LF or NUL, is never stored:
/// written out, it would end its line early and start a field (or a body) of the sender's choosing.
/// `refusedAField` remembers that one was turned away, so a response can refuse to go out at all.
public struct Headers: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []
    /// Whether a field was turned away for a name or value that cannot be written safely; it
    /// stays set whatever is added or replaced later.
    public private(set) var refusedAField = false

    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields.reserveCapacity(fields.count)
        for field in fields { add(field.name, field.value) }
    }

    /// The first value for `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// How many fields are named `name`, without gathering their values.
    public func count(of name: String) -> Int {
        var count = 0
        for field in fields where Self.sameName(field.name, name) { count += 1 }
        return count
    }

    /// ASCII case-insensitive comparison without building lowercased copies: header names
    /// are tokens, so ASCII is all they hold.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        // Names are mostly sent as they are written here: one comparison of the bytes.
        if lhs == rhs { return true }
        var index = lhs.utf8.startIndex
        var other = rhs.utf8.startIndex
        while index != lhs.utf8.endIndex {
            let a = lhs.utf8[index], b = rhs.utf8[other]
            if a != b {
                guard a | 0x20 == b | 0x20, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) else { return false }
            }
            index = lhs.utf8.index(after: index)
            other = rhs.utf8.index(after: other)
        }
        return true
    }

    /// Appends a field, unless it cannot be written safely (see the type's summary).
    public mutating func add(_ name: String, _ value: String) {
        guard Self.isWritable(name: name, value: value) else {
            refusedAField = true
            return
        }
        fields.append((name, value))
    }

    /// Appends a field the request parser has already checked as `isWritable` would.
    mutating func appendChecked(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every value of `name` with `value`; a value that cannot be written safely
    /// removes the old ones all the same, so a stale value never stands in for the refused one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { Self.sameName($0.name, name) }
        add(name, value)
    }

    /// Marks these fields as having lost one, for a response that stands in for a refused one.
    mutating func markRefused() { refusedAField = true }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Whether `name: value` can go on the wire as one field line: the name a token (RFC 9110
    /// 5.1), the value free of the three bytes that end a line or a C string.
    public static func isWritable(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(RequestParser.isTokenCharacter) && !containsLineBreakOrNUL(value)
    }

    /// Whether `text` holds a CR, LF or NUL.
    static func containsLineBreakOrNUL(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}
