/// An offset that does not exist in the collection it was applied to.
public struct OffsetError: Error, Hashable, Sendable {
    public let offset: Int
    /// Empty when no offset at all was valid, as in an empty list.
    public let validRange: Range<Int>

    public init(offset: Int, validRange: Range<Int>) {
        self.offset = offset
        self.validRange = validRange
    }

    public var message: String {
        guard let last = validRange.last else { return "Offset \(offset) is out of range: the list is empty." }
        return "Offset \(offset) is out of range \(validRange.lowerBound)...\(last)."
    }
}

// SwiftUI's onDelete / onMove vocabulary, with its exact semantics, but an
// invalid offset throws instead of trapping.
extension Array {
    /// Removes the elements at `offsets`, all of which refer to positions before any removal.
    public mutating func remove(atOffsets offsets: some Sequence<Int>) throws(OffsetError) {
        let unique = Set(offsets)
        try checkElementOffsets(unique)
        guard !unique.isEmpty else { return }
        var kept: [Element] = []
        kept.reserveCapacity(count - unique.count)
        for (offset, element) in enumerated() where !unique.contains(offset) {
            kept.append(element)
        }
        self = kept
    }

    /// Moves the elements at `source` so that they land before the element that was at
    /// `destination` in the original array (`count` means the end), keeping their order.
    public mutating func move(fromOffsets source: some Sequence<Int>, toOffset destination: Int) throws(OffsetError) {
        let unique = Set(source)
        try checkElementOffsets(unique)
        guard (0...count).contains(destination) else {
            throw OffsetError(offset: destination, validRange: 0..<(count + 1))
        }
        let ordered = unique.sorted()
        let moving = ordered.map { self[$0] }
        var rest: [Element] = []
        rest.reserveCapacity(count - moving.count)
        for (offset, element) in enumerated() where !unique.contains(offset) {
            rest.append(element)
        }
        let insertion = destination - ordered.prefix { $0 < destination }.count
        rest.insert(contentsOf: moving, at: insertion)
        self = rest
    }

    private func checkElementOffsets(_ offsets: Set<Int>) throws(OffsetError) {
        for offset in offsets.sorted() where !indices.contains(offset) {
            throw OffsetError(offset: offset, validRange: 0..<count)
        }
    }
}
