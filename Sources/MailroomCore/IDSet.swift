/// The ids a command names, for testing rows against: a click names one or a few, so those are
/// compared directly (hashing every row of a large mailbox cost more than the rest of a post);
/// a long selection is hashed once.
struct IDSet {
    private static let directLimit = 16
    /// Distinct ids, when there are few; otherwise empty.
    private let few: [MessageID]
    private let many: Set<MessageID>?

    init(_ ids: some Sequence<MessageID>) {
        var few: [MessageID] = []
        var iterator = ids.makeIterator()
        while let id = iterator.next() {
            guard !few.contains(id) else { continue }
            guard few.count < Self.directLimit else {
                var many = Set(few)
                many.insert(id)
                while let id = iterator.next() { many.insert(id) }
                self.few = []
                self.many = many
                return
            }
            few.append(id)
        }
        self.few = few
        self.many = nil
    }

    /// How many distinct ids were named.
    var count: Int { many?.count ?? few.count }

    @inline(__always)
    func contains(_ id: MessageID) -> Bool {
        if let many { return many.contains(id) }
        return few.contains(id)
    }

    /// The named ids that are not in `found`, ascending.
    func subtracting(_ found: [MessageID]) -> [MessageID] {
        guard found.count < count else { return [] }
        if let many { return many.subtracting(found).sorted() }
        return few.filter { !found.contains($0) }.sorted()
    }
}
