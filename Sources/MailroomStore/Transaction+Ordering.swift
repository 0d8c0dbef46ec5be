import MailroomCore

/// A mailbox's own order: moves by one place or to an offset, and the ranks they take.
extension Transaction {
    /// Moves one message up (towards the top) or down by one place: it takes a rank between
    /// the neighbour it passes and the row beyond, one row written. Only the moved message's
    /// rank changes, so someone walking the pages meanwhile sees every other row exactly once.
    public func move(_ id: MessageID, by step: MoveStep, in box: MailboxID) throws(StoreError) {
        for _ in 0..<64 {
            guard let rank = try rank(of: id, in: box) else { throw .refused(.mailbox(.unknownMessage(id))) }
            let beyond = step == .up
                ? try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT 2", [.integer(box.rawValue), .integer(rank)])
                : try rows("WHERE m.mailbox = ? AND m.rank < ? ORDER BY m.rank DESC LIMIT 2", [.integer(box.rawValue), .integer(rank)])
            // Already at the edge: like a disabled button, nothing to do.
            guard let passed = beyond.first?.key else { return }
            let next = beyond.dropFirst().first?.key
            let free = step == .up
                ? Rank.spread(1, above: passed, below: next)?.first
                : Rank.spread(1, above: next, below: passed)?.first
            if let free {
                try run("UPDATE messages SET rank = ? WHERE id = ?", [.integer(free), .integer(id.rawValue)])
                return
            }
            try makeRoom(in: box, around: passed, for: 1)
        }
        throw .invalidData("no room could be made in mailbox \(box) for a move")
    }

    /// SwiftUI's `move(fromOffsets:toOffset:)` on `box`'s order, the sources named by id:
    /// `destination` is an offset in the order before the move (`0...count`). The moved
    /// messages get ranks between their new neighbours; nothing else is written unless those
    /// neighbours have no room between them.
    public func move(_ ids: [MessageID], toOffset destination: Int, in box: MailboxID) throws(StoreError) {
        var sources: Set<MessageID> = []
        var ordered: [(id: MessageID, rank: Int64)] = []
        for id in ids where sources.insert(id).inserted {
            guard let rank = try rank(of: id, in: box) else { throw .refused(.mailbox(.unknownMessage(id))) }
            ordered.append((id, rank))
        }
        let total = try count("SELECT total FROM mailboxes WHERE id = ?", [.integer(box.rawValue)])
        guard (0...total).contains(destination) else {
            throw .refused(.mailbox(.offset(OffsetError(offset: destination, validRange: 0..<(total + 1)))))
        }
        guard !ordered.isEmpty else { return }
        ordered.sort { $0.rank > $1.rank }
        for _ in 0..<64 {
            let (low, high) = try neighbours(of: sources, atOffset: destination, total: total, in: box)
            if let ranks = Rank.spread(ordered.count, above: low, below: high) {
                for (source, rank) in zip(ordered, ranks) {
                    try run("UPDATE messages SET rank = ? WHERE id = ?", [.integer(rank), .integer(source.id.rawValue)])
                }
                return
            }
            try makeRoom(in: box, around: low ?? high ?? 0, for: ordered.count)
        }
        throw .invalidData("no room could be made in mailbox \(box) for a move")
    }

    /// The ranks the moved rows must lie between: the lowest row above the destination and the
    /// highest row at or below it, neither of them moving (nil past either end).
    private func neighbours(
        of sources: Set<MessageID>, atOffset destination: Int, total: Int, in box: MailboxID
    ) throws(StoreError) -> (low: Int64?, high: Int64?) {
        let limit = SQLValue.integer(sources.count + 1)
        let above: [(message: Message, key: Int64)]
        let below: [(message: Message, key: Int64)]
        if destination < total {
            // The row at the destination offset: an index walk to that depth, for this one call.
            let at = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC LIMIT 1 OFFSET ?",
                              [.integer(box.rawValue), .integer(destination)])
            guard let pivot = at.first?.key else { throw .invalidData("mailbox \(box) has fewer rows than its count") }
            above = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT ?", [.integer(box.rawValue), .integer(pivot), limit])
            below = try rows("WHERE m.mailbox = ? AND m.rank <= ? ORDER BY m.rank DESC LIMIT ?", [.integer(box.rawValue), .integer(pivot), limit])
        } else {
            above = try rows("WHERE m.mailbox = ? ORDER BY m.rank ASC LIMIT ?", [.integer(box.rawValue), limit])
            below = []
        }
        let high = above.first { !sources.contains($0.message.id) }?.key
        let low = below.first { !sources.contains($0.message.id) }?.key
        return (low, high)
    }

    /// A rank in `box` as near `wanted` as is free: `wanted` itself, or, when another row took
    /// it, one just above that row (which a spreading of rows may have moved meanwhile).
    func freeRank(near wanted: Int64, in box: MailboxID) throws(StoreError) -> Int64 {
        let holders = try rows("WHERE m.mailbox = ? AND m.rank = ? LIMIT 1", [.integer(box.rawValue), .integer(wanted)])
        guard let holder = holders.first?.message.id else { return wanted }
        for _ in 0..<64 {
            guard let rank = try rank(of: holder, in: box) else { return wanted }
            let above = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT 1", [.integer(box.rawValue), .integer(rank)])
            if let free = Rank.spread(1, above: rank, below: above.first?.key)?.first { return free }
            try makeRoom(in: box, around: rank, for: 1)
        }
        throw .invalidData("no room could be made in mailbox \(box) to put a message back")
    }

    /// Spreads out the rows around `pivot` so that `needed` more fit between any two of them:
    /// a window of rows that doubles until the rows just outside it leave enough room.
    private func makeRoom(in box: MailboxID, around pivot: Int64, for needed: Int) throws(StoreError) {
        var width = 32
        while true {
            let lower = try rows("WHERE m.mailbox = ? AND m.rank <= ? ORDER BY m.rank DESC LIMIT ?",
                                 [.integer(box.rawValue), .integer(pivot), .integer(width + 1)])
            let upper = try rows("WHERE m.mailbox = ? AND m.rank > ? ORDER BY m.rank ASC LIMIT ?",
                                 [.integer(box.rawValue), .integer(pivot), .integer(width + 1)])
            let floor = lower.count > width ? lower.last?.key : nil
            let ceiling = upper.count > width ? upper.last?.key : nil
            let window = Array(upper.prefix(width).reversed()) + Array(lower.prefix(width))
            // Room for each row and `needed` more beside each of them.
            let slots = window.count * (needed + 1)
            if let spread = Rank.spread(slots, above: floor, below: ceiling) {
                for (index, row) in window.enumerated() {
                    try run("UPDATE messages SET rank = ? WHERE id = ?",
                            [.integer(spread[index * (needed + 1) + needed / 2]), .integer(row.message.id.rawValue)])
                }
                return
            }
            guard floor != nil || ceiling != nil else { throw .invalidData("mailbox \(box) has no room left") }
            width *= 2
        }
    }

    /// `id`'s rank when it is in `box`.
    func rank(of id: MessageID, in box: MailboxID) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT rank FROM messages WHERE id = ? AND mailbox = ?")
        try statement.bind([.integer(id.rawValue), .integer(box.rawValue)])
        defer { statement.reset() }
        return try statement.step() ? try statement.integer(at: 0) : nil
    }
}
