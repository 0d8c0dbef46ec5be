import MailroomCore
import MailroomStore
import TestSupport
import Testing

/// The SQLite store against the in-memory model, which is the oracle: the same commands on both,
/// each in a write of its own, and after every one the same mailboxes in the same order, with
/// the same flags and counts. A failure names the seed and the step, so it can be run again.
@Suite struct OracleTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomCommandsLeaveTheStoreInTheOrderTheModelComputes(seed: UInt64) throws {
        try withTemporaryPath { path in
            var random = SeededGenerator(seed: seed)
            let library = Self.library(inbox: 30 + random.below(31), archive: 3 + random.below(4), using: &random)
            var twins = try Twins(path: path, library: library, seed: seed)
            defer { twins.store.close() }
            for step in 1...300 {
                try twins.randomStep(step, using: &random)
            }
            // Every kind of step ran, so a seed that never refuses or never undoes is noticed.
            let missing = Twins.Kind.allCases.filter { twins.ran[$0] == nil }.map(\.rawValue)
            #expect(missing.isEmpty, "seed \(seed) never ran \(missing)")
            #expect(try twins.store.integrityCheck() == "ok")
        }
    }

    /// Each move of the bottom row to offset 1 halves the gap between the top two rows, until
    /// there is none and the store must spread a window of rows out to make room.
    @Test func movingTheBottomRowBetweenTheTopTwoUntilNoRankIsLeftStillFollowsTheModel() throws {
        try withTemporaryPath { path in
            var random = SeededGenerator(seed: 42)
            var twins = try Twins(path: path, library: Self.library(inbox: 40, archive: 3, using: &random), seed: 42)
            defer { twins.store.close() }
            var smallestGap = Int64.max
            var spreads = 0
            var previousGap = try twins.gapBetweenTheTopTwo()
            for step in 1...200 {
                let ids = twins.model[.inbox]?.ids ?? []
                let bottom = try #require(ids.last)
                try twins.move([bottom], toOffset: 1, step: step)
                let gap = try twins.gapBetweenTheTopTwo()
                smallestGap = min(smallestGap, gap)
                if gap > previousGap { spreads += 1 }
                previousGap = gap
            }
            // The run did reach the end of the room between two neighbours, more than once.
            #expect(smallestGap == 1)
            #expect(spreads >= 5)
            let page = try twins.store.read { reader throws(StoreError) in try reader.page(of: .inbox, from: .top, limit: 500) }
            #expect(page.rows.map(\.id) == twins.model[.inbox]?.ids)
            #expect(zip(page.keys, page.keys.dropFirst()).allSatisfy { $0 > $1 }, "ranks \(page.keys)")
            #expect(try twins.store.integrityCheck() == "ok")
        }
    }

    /// Rows loaded one rank apart leave no room anywhere: every move spreads a window, and in the
    /// middle of 300 rows the window must double several times before it finds room. Deletes and
    /// restores then look for free ranks among rows that were spread.
    @Test(arguments: [7, 8] as [UInt64])
    func randomCommandsOnRowsWithNoRoomBetweenThemStillFollowTheModel(seed: UInt64) throws {
        try withTemporaryPath { path in
            var random = SeededGenerator(seed: seed)
            // Loaded row by row, so unread and unflagged, as `insert` stores them.
            let messages = Self.messages(300, firstID: 1, varied: false, using: &random)
            let library = Library(mailboxes: [Mailbox(id: .inbox, name: "Inbox", messages: messages)])
            var twins = try Twins(path: path, library: library, seed: seed, rankOf: { offset in Int64(300 - offset) })
            defer { twins.store.close() }
            twins.hotOffset = 150
            for step in 1...300 {
                try twins.randomStep(step, using: &random)
            }
            #expect(try twins.store.integrityCheck() == "ok")
        }
    }

    /// The rank a trashed message had is taken by a row moved into its place, with no room
    /// left above that row: putting it back must spread rows out, and it must still land beside
    /// the row that took its place (the model puts it just below that row, the store just above).
    @Test func restoringAMessageWhoseRankWasTakenWithNoRoomAboveStillPutsItBackInItsPlace() throws {
        try withTemporaryPath { path in
            var random = SeededGenerator(seed: 9)
            let messages = Self.messages(60, firstID: 1, varied: false, using: &random)
            let library = Library(mailboxes: [Mailbox(id: .inbox, name: "Inbox", messages: messages)])
            var twins = try Twins(path: path, library: library, seed: 9, rankOf: { offset in Int64(60 - offset) })
            defer { twins.store.close() }
            let ids = messages.map(\.id)
            try twins.trash([ids[20]], from: .inbox, step: 1)
            // The bottom row goes where the trashed one was, between ranks 41 and 39: rank 40.
            try twins.move([ids[59]], toOffset: 20, step: 2)
            let landed = try twins.restore([ids[20]], step: 3)
            let place = try #require(landed[ids[20]])
            #expect(place.model == 21)
            // The old rank is taken and the row above leaves no room: rows are spread out, and the
            // message goes just above the row that took its rank, wherever that row now is (the
            // old rank itself, free after the spreading, would be 30 rows too low).
            #expect(place.store == 20 || place.store == 21, "the store put it back at offset \(place.store ?? -1)")
            #expect(try twins.store.integrityCheck() == "ok")
        }
    }

    // MARK: Libraries

    /// `inbox` messages in the Inbox and `archive` in Archive, ids shuffled so that no order in
    /// the store could come from them; some read, some flagged.
    static func library(inbox: Int, archive: Int, using random: inout SeededGenerator) -> Library {
        Library(mailboxes: [
            Mailbox(id: .inbox, name: "Inbox", messages: messages(inbox, firstID: 1, varied: true, using: &random)),
            Mailbox(id: .archive, name: "Archive", messages: messages(archive, firstID: Int64(inbox) + 1, varied: true, using: &random)),
        ])
    }

    static let subjects = ["Lunch on Friday?", "Ünïcödé ✉️ 🎉", "O'Brien said \"hi\"", "'; DROP TABLE messages; --", "日本語の件名"]

    static func messages(_ count: Int, firstID: Int64, varied: Bool, using random: inout SeededGenerator) -> [Message] {
        shuffled((0..<Int64(count)).map { MessageID(firstID + $0) }, using: &random).map { id in
            Message(
                id: id, subject: "\(random.pick(subjects)) \(id)", body: "Body of \(id)\nsecond line",
                author: random.pick(["", "Ann", "Zoë"]), createdAt: 1_600_000_000 + id.rawValue,
                isUnread: varied ? random.chance(2, in: 3) : true, isFlagged: varied ? random.chance(1, in: 5) : false)
        }
    }
}

/// A store and the model it must agree with, changed by the same commands.
private struct Twins {
    enum Kind: String, CaseIterable {
        case moveToOffset, refusedMove, moveByOne, add, refusedAdd, trash, undo, restore, mark
    }

    let store: Store
    private(set) var model: Library
    let seed: UInt64
    /// How many steps of each kind ran.
    private(set) var ran: [Kind: Int] = [:]
    private var time: Int64 = 1_700_000_000
    /// Deletes that an Undo takes back exactly: nothing but deletes and their Undo ran since.
    private var undoable: [(deletion: Int64, ids: [MessageID])] = []
    /// An offset that half the moves go to, so that the room there runs out again and again.
    var hotOffset: Int?

    /// Loads `library` into a new store: with `replaceAll`, or when `rankOf` is given row by row
    /// in the Inbox at the ranks it gives for each offset.
    init(path: String, library: Library, seed: UInt64, rankOf: ((Int) -> Int64)? = nil) throws {
        store = try Store(path: path)
        model = library
        self.seed = seed
        if let rankOf {
            try store.write { transaction in
                for (offset, message) in (library[.inbox]?.messages ?? []).enumerated() {
                    try transaction.insert(message, into: .inbox, rank: rankOf(offset), origin: nil)
                }
            }
        } else {
            try store.write { try $0.replaceAll(with: library) }
        }
        try expectSame("seed \(seed), after loading")
    }

    // MARK: Steps

    mutating func randomStep(_ step: Int, using random: inout SeededGenerator) throws {
        let inbox = model[.inbox]?.ids ?? []
        let roll = random.below(100)
        if !undoable.isEmpty, random.chance(2, in: 5) {
            try undo(step: step)
        } else if inbox.isEmpty || (50..<60).contains(roll) {
            try add(step: step, using: &random)
        } else if roll < 35 {
            try randomMove(step: step, using: &random)
        } else if roll < 50 {
            let id = random.chance(1, in: 30)
                ? MessageID(999_999)
                : random.pick([inbox[0], inbox[inbox.count - 1], random.pick(inbox)])
            try move(id, by: random.chance(1, in: 2) ? .up : .down, step: step)
        } else if roll < 75 {
            try trash(step: step, using: &random)
        } else if roll < 85 {
            try restore(step: step, using: &random)
        } else {
            try mark(step: step, using: &random)
        }
    }

    /// A random subset of the Inbox (empty, all, with duplicates, in any order, now and then with
    /// a message from elsewhere) to a random offset, now and then one past the end.
    mutating func randomMove(step: Int, using random: inout SeededGenerator) throws {
        let inbox = model[.inbox]?.ids ?? []
        var ids: [MessageID]
        switch random.below(10) {
        case 0: ids = []
        case 1: ids = inbox
        case 2: ids = [random.pick(inbox)]
        case 3: ids = random.subset(of: inbox) + random.subset(of: inbox)
        case 4: ids = Array(inbox[random.below(inbox.count)...].prefix(1 + random.below(8)))
        default: ids = random.nonEmptySubset(of: inbox).filter { _ in random.chance(1, in: 3) }
        }
        ids = shuffled(ids, using: &random)
        if random.chance(1, in: 30), let elsewhere = model[.archive]?.ids.first ?? model[.trash]?.ids.first {
            ids.insert(elsewhere, at: random.below(ids.count + 1))
        }
        let destination = switch random.below(20) {
        case 0, 1: inbox.count + 1
        case 2: -1
        case 3..<13 where hotOffset != nil: min(hotOffset ?? 0, inbox.count)
        default: random.below(inbox.count + 1)
        }
        try move(ids, toOffset: destination, step: step)
    }

    mutating func move(_ ids: [MessageID], toOffset destination: Int, step: Int) throws {
        let done = try both(.moveToOffset, "step \(step): move \(ids) to offset \(destination) of \(model[.inbox]?.count ?? 0)") {
            try $0.move(ids, toOffset: destination, in: .inbox)
        } model: { (library: inout Library) throws(LibraryError) in
            try library.update(.inbox) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(ids, toOffset: destination)
            }
        }
        if done == nil { ran[.refusedMove, default: 0] += 1 }
    }

    mutating func move(_ id: MessageID, by direction: MoveStep, step: Int) throws {
        _ = try both(.moveByOne, "step \(step): move \(id) \(direction)") {
            try $0.move(id, by: direction, in: .inbox)
        } model: { (library: inout Library) throws(LibraryError) in
            try library.update(.inbox) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(id, by: direction)
            }
        }
    }

    mutating func add(step: Int, using random: inout SeededGenerator) throws {
        time += Int64(1 + random.below(600))
        let refused = random.chance(1, in: 5)
        let draft = Draft(subject: refused ? "   " : "  New \(step) \(random.pick(OracleTests.subjects))  ", body: "Hello\n")
        let at = time
        let added = try both(.add, "step \(step): add \(draft.subject.debugDescription)") {
            try $0.add(draft, to: .inbox, at: at)
        } model: { (library: inout Library) throws(LibraryError) in
            try library.add(draft, to: .inbox, at: at)
        }
        if let added {
            #expect(added.store == added.model, "seed \(seed), step \(step)")
        } else {
            ran[.refusedAdd, default: 0] += 1
        }
    }

    /// Some messages of the Inbox (now and then of Archive) to Trash, now and then with ids that
    /// are not there.
    mutating func trash(step: Int, using random: inout SeededGenerator) throws {
        let source: MailboxID = random.chance(1, in: 6) && model[.archive]?.isEmpty == false ? .archive : .inbox
        let here = model[source]?.ids ?? []
        var ids = random.chance(1, in: 5)
            ? random.nonEmptySubset(of: here)
            : Array(here[random.below(here.count)...].prefix(1 + random.below(4)))
        if random.chance(1, in: 5) {
            ids.append(random.chance(1, in: 2) ? MessageID(999_999) : random.pick((model[.trash]?.ids ?? []) + [MessageID(999_998)]))
        }
        try trash(shuffled(ids, using: &random), from: source, step: step)
    }

    mutating func trash(_ ids: [MessageID], from source: MailboxID, step: Int) throws {
        let done = try both(.trash, "step \(step): trash \(ids) from \(source)") { transaction in
            (try transaction.move(ids, from: source, to: .trash), transaction.lastDeletion)
        } model: { (library: inout Library) throws(LibraryError) in
            (try library.move(ids, from: source, to: .trash), nil as Int64?)
        }
        let result = try #require(done)
        #expect(result.store.0 == result.model.0, "seed \(seed), step \(step): what was trashed")
        if let deletion = result.store.1 {
            undoable.append((deletion, result.model.0.applied))
        }
    }

    /// Undo of the latest delete not yet undone: the store finds its messages by the delete's
    /// tag, and both must then show exactly what they showed before it.
    mutating func undo(step: Int) throws {
        guard let last = undoable.popLast() else { return }
        let found = try store.read { reader throws(StoreError) in try reader.ids(in: .trash, enteredBy: .max) }.filter(last.ids.contains)
        let done = try both(.undo, "step \(step): undo \(last.ids)") { transaction in
            let ids = try transaction.ids(trashedIn: last.deletion)
            return (ids, try transaction.restore(ids))
        } model: { (library: inout Library) throws(LibraryError) in
            (last.ids, library.restore(last.ids))
        }
        let result = try #require(done)
        #expect(result.store.0 == last.ids, "seed \(seed), step \(step): the delete's messages, top first")
        #expect(found == last.ids, "seed \(seed), step \(step): the delete's messages in Trash")
        #expect(result.store.1 == result.model.1, "seed \(seed), step \(step): what was restored")
    }

    /// Restore of some of Trash, in any order: where each lands may differ (the store puts a
    /// message back at its old rank, the model above its old neighbour, and those part when rows
    /// moved in between), so only where each went and the order of the rest are compared; then
    /// the model takes the store's order, so later steps compare exactly again.
    mutating func restore(step: Int, using random: inout SeededGenerator) throws {
        let trash = model[.trash]?.messages ?? []
        var ids = shuffled(random.nonEmptySubset(of: trash.map(\.id)), using: &random)
        if random.chance(1, in: 4) { ids.append(MessageID(999_999)) }
        try restore(ids, step: step)
    }

    /// Restores `ids` on both; says where each restored message landed in its mailbox on each
    /// side, before the model took the store's order.
    @discardableResult
    mutating func restore(_ ids: [MessageID], step: Int) throws -> [MessageID: (store: Int?, model: Int?)] {
        let trash = model[.trash]?.messages ?? []
        let origins = Dictionary(uniqueKeysWithValues: trash.map { ($0.id, $0.origin?.mailbox ?? .inbox) })
        let restored = Set(ids)
        let context = "seed \(seed), step \(step): restore \(ids)"
        let done = try both(.restore, "step \(step): restore \(ids)", compare: false) {
            try $0.restore(ids)
        } model: { (library: inout Library) throws(LibraryError) in
            library.restore(ids)
        }
        let result = try #require(done)
        #expect(result.store == result.model, "\(context): what was restored")
        var landed: [MessageID: (store: Int?, model: Int?)] = [:]
        for id in result.model.applied {
            let mailbox = try store.read { reader throws(StoreError) in try reader.mailbox(of: id) }
            #expect(mailbox == origins[id], "\(context): \(id) goes back to its mailbox")
            #expect(model.mailbox(of: id) == origins[id], "\(context): \(id) goes back to its mailbox in the model")
            let box = origins[id] ?? .inbox
            let order = try store.read { reader throws(StoreError) in try reader.allMessages(of: box) }.map(\.id)
            landed[id] = (order.firstIndex(of: id), model[box]?.offset(of: id))
        }
        for box in [MailboxID.inbox, .archive] {
            let order = try store.read { reader throws(StoreError) in try reader.allMessages(of: box) }.map(\.id)
            let untouched = order.filter { !restored.contains($0) }
            try #require(untouched == model[box]?.ids.filter { !restored.contains($0) }, "\(context): the order of the rest of \(box)")
            try model.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                for (offset, id) in order.enumerated() {
                    guard let from = mailbox.offset(of: id) else { throw .unknownMessage(id) }
                    if from != offset { try mailbox.move(fromOffsets: [from], toOffset: offset) }
                }
            }
        }
        try expectSame(context)
        return landed
    }

    /// Flags or marks some messages of the Inbox, now and then of Trash or ones that are not there.
    mutating func mark(step: Int, using random: inout SeededGenerator) throws {
        let box: MailboxID = random.chance(1, in: 5) && model[.trash]?.isEmpty == false ? .trash : .inbox
        var ids = random.nonEmptySubset(of: model[box]?.ids ?? [])
        if random.chance(1, in: 5) { ids.append(MessageID(999_999)) }
        ids = shuffled(ids, using: &random)
        let value = random.chance(1, in: 2)
        let flag = random.chance(1, in: 2)
        let done = try both(.mark, "step \(step): \(flag ? "flagged" : "unread") = \(value) for \(ids) in \(box)") { transaction in
            try flag ? transaction.setFlagged(value, for: ids, in: box) : transaction.setUnread(value, for: ids, in: box)
        } model: { (library: inout Library) throws(LibraryError) in
            try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                flag ? mailbox.setFlagged(value, for: ids) : mailbox.setUnread(value, for: ids)
            }
        }
        let result = try #require(done)
        #expect(result.store == result.model, "seed \(seed), step \(step): what was marked")
    }

    // MARK: Running and comparing

    /// Runs `command` on the store in a write of its own and `change` on the model. Where the
    /// model refuses, the store must refuse with the same error and write nothing (nil then);
    /// otherwise both results. Unless told not to, the two are then compared in full.
    private mutating func both<StoreResult, ModelResult>(
        _ kind: Kind, _ description: String, compare: Bool = true,
        store command: (Transaction) throws -> StoreResult,
        model change: (inout Library) throws(LibraryError) -> ModelResult
    ) throws -> (store: StoreResult, model: ModelResult)? {
        let context = "seed \(seed), \(description)"
        // A step other than a delete or its Undo moves rows, after which Undo is no longer exact.
        if kind != .trash && kind != .undo { undoable = [] }
        let revision = try store.read { reader throws(StoreError) in try reader.revision() }
        let storeResult: Result<StoreResult, StoreError>
        do {
            storeResult = .success(try store.write(command))
        } catch let error as StoreError {
            storeResult = .failure(error)
        }
        var changed = model
        let modelResult: Result<ModelResult, LibraryError>
        do {
            modelResult = .success(try change(&changed))
        } catch {
            modelResult = .failure(error)
        }
        switch (storeResult, modelResult) {
        case (.success(let stored), .success(let modelled)):
            model = changed
            ran[kind, default: 0] += 1
            if compare { try expectSame(context) }
            return (stored, modelled)
        case (.failure(let error), .failure(let refusal)):
            #expect(error == .refused(refusal), "\(context): the same refusal")
            #expect(try store.read { reader throws(StoreError) in try reader.revision() } == revision, "\(context): a refused command makes no revision")
            try expectSame(context)
            return nil
        case (.success, .failure(let refusal)):
            Issue.record("\(context): the model refused (\(refusal)) but the store did not")
            throw Diverged()
        case (.failure(let error), .success):
            Issue.record("\(context): the store refused (\(error)) but the model did not")
            throw Diverged()
        }
    }

    /// Stops a run at its first difference: every later step would differ too.
    struct Diverged: Error {}

    /// Both hold the same Inbox and Archive, message for message in the same order; the same
    /// Trash (each message's origin only by mailbox: the store keeps a rank, the model an offset
    /// and a neighbour); the same counts; and the Inbox's ranks are unique.
    func expectSame(_ context: String) throws {
        let stored = try store.read { reader throws(StoreError) in
            (inbox: try reader.allMessages(of: .inbox), archive: try reader.allMessages(of: .archive),
             trash: try reader.allMessages(of: .trash), summaries: try reader.mailboxes(),
             page: try reader.page(of: .inbox, from: .top, limit: 500))
        }
        let inbox = model[.inbox]?.messages ?? []
        try #require(stored.inbox.map(\.id) == inbox.map(\.id), "\(context): the Inbox's order")
        try #require(stored.inbox == inbox, "\(context): the Inbox's messages")
        try #require(stored.archive == model[.archive]?.messages, "\(context): Archive")
        try #require(stored.trash.map(trashed) == model[.trash]?.messages.map(trashed), "\(context): Trash")
        try #require(stored.summaries == model.summaries, "\(context): counts")
        try #require(stored.page.rows.map(\.id) == inbox.map(\.id), "\(context): the Inbox's first page")
        try #require(stored.page.total == inbox.count, "\(context): the Inbox's total")
        let keys = stored.page.keys
        try #require(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 }, "\(context): unique ranks \(keys)")
    }

    /// The difference between the top two ranks of the Inbox.
    func gapBetweenTheTopTwo() throws -> Int64 {
        let keys = try store.read { reader throws(StoreError) in try reader.page(of: .inbox, from: .top, limit: 2) }.keys
        try #require(keys.count == 2)
        return keys[0] - keys[1]
    }

    private func trashed(_ message: Message) -> Message {
        var message = message
        message.origin = message.origin.map { Origin(mailbox: $0.mailbox, offset: 0) }
        return message
    }
}

/// `items` in a random order that depends on the seed alone (Fisher–Yates with `below`).
private func shuffled<T>(_ items: [T], using random: inout SeededGenerator) -> [T] {
    var items = items
    for index in items.indices.reversed() {
        items.swapAt(index, random.below(index + 1))
    }
    return items
}
