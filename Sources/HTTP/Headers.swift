/// Header fields in arrival order; names compare without regard to case.
public struct Headers: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The first value for `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func values(for name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every value of `name` with `value`.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
        fields.append((name, value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}
