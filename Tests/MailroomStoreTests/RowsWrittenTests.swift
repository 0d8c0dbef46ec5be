import MailroomCore
@testable import MailroomStore
import Testing

/// A change writes the rows it touches, never a number of rows that grows with the mailbox:
/// measured as SQLite's count of rows changed (triggers and the revision counter included), at
/// 1,000 and at 100,000 messages.
@Suite struct RowsWrittenTests {
    /// Rows changed by each kind of change on an Inbox of `size` messages (ids 1...size, 1 on top).
    private func rowsWritten(inboxOf size: Int) throws -> [String: Int64] {
        var written: [String: Int64] = [:]
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            try store.write { transaction in
                for index in 1...size {
                    let message = Message(id: MessageID(Int64(index)), subject: "M\(index)", createdAt: Int64(index))
                    try transaction.insert(message, into: .inbox, rank: Int64(size - index + 1) << 20, origin: nil)
                }
            }
            func measure(_ name: String, _ change: (Transaction) throws -> Void) throws {
                let before = try #require(store.openDatabase).totalChanges
                try store.write(change)
                written[name] = try #require(store.openDatabase).totalChanges - before
            }
            let middle = MessageID(Int64(size / 2))
            try measure("move up") { try $0.move(middle, by: .up, in: .inbox) }
            try measure("move down") { try $0.move(middle, by: .down, in: .inbox) }
            try measure("move three to the top") {
                try $0.move([MessageID(Int64(size - 1)), MessageID(Int64(size / 3)), middle], toOffset: 0, in: .inbox)
            }
            try measure("move one to the bottom") { try $0.move([MessageID(1)], toOffset: size, in: .inbox) }
            try measure("flag one") { try $0.setFlagged(true, for: [middle], in: .inbox) }
            try measure("delete one") { try $0.move([MessageID(Int64(size / 4))], from: .inbox, to: .trash) }
            try measure("undo it") { try $0.restore([MessageID(Int64(size / 4))]) }
            try measure("add one") { try $0.add(Draft(subject: "New"), to: .inbox, at: 1) }
        }
        return written
    }

    @Test func eachChangeWritesAsManyRowsAtAHundredThousandAsAtAThousand() throws {
        let small = try rowsWritten(inboxOf: 1_000)
        let big = try rowsWritten(inboxOf: 100_000)
        print("rows written, 1,000 → 100,000 messages: " + small.keys.sorted().map { "\($0) \(small[$0] ?? -1) → \(big[$0] ?? -1)" }.joined(separator: ", "))
        #expect(small == big)
        #expect(small.count == 8)
        // A move of one row: that row and the revision.
        #expect(small["move up"] == 2)
        #expect(small["move three to the top"] == 4)
    }
}
