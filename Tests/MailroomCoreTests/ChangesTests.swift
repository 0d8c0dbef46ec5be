import MailroomCore
import Testing
import TestSupport

/// The rows a store keeps, as plain dictionaries: what `Changes` is applied to.
struct RowModel: Equatable, CustomStringConvertible {
    var messages: [MessageID: StoredMessage] = [:]
    var mailboxes: [MailboxID: String] = [:]
    var nextMessageID: Int64 = 1
    var nextMailboxID: Int64 = MailboxID.firstCustom

    init() {}

    /// The rows of `library` as they should be stored.
    init(_ library: Library) {
        messages = storedRows(of: library)
        mailboxes = Dictionary(uniqueKeysWithValues: library.mailboxes.map { ($0.id, $0.name) })
        nextMessageID = library.nextMessageID
        nextMailboxID = library.nextMailboxID
    }

    mutating func apply(_ changes: Changes) {
        for id in changes.deletedMailboxes { mailboxes[id] = nil }
        for header in changes.savedMailboxes { mailboxes[header.id] = header.name }
        for id in changes.deletedMessages { messages[id] = nil }
        for row in changes.savedMessages { messages[row.message.id] = row }
        nextMessageID = changes.nextMessageID
        nextMailboxID = changes.nextMailboxID
    }

    var description: String {
        let boxes = mailboxes.keys.sorted().map { "\($0)=\(mailboxes[$0]!)" }.joined(separator: " ")
        let rows = messages.keys.sorted().map { id in
            let row = messages[id]!
            return "\(id)@\(row.mailbox)#\(row.position)"
        }.joined(separator: " ")
        return "[\(boxes)] [\(rows)] next \(nextMessageID)/\(nextMailboxID)"
    }
}

/// A library whose Inbox holds `count` messages, ids 1...count top to bottom.
func bigLibrary(_ count: Int) -> Library {
    Library(mailboxes: [
        Mailbox(id: .inbox, name: "Inbox", messages: (1...Int64(count)).map { libraryMessage($0, unread: $0 % 2 == 0) })
    ])
}

@Suite struct ChangesExampleTests {
    @Test func anUnchangedLibraryHasNoChanges() {
        for library in [Library(), sampleLibrary(), bigLibrary(100)] {
            let changes = library.changes(since: library)
            #expect(changes.isEmpty)
            #expect(changes.savedMailboxes.isEmpty && changes.deletedMailboxes.isEmpty)
            #expect(changes.savedMessages.isEmpty && changes.deletedMessages.isEmpty)
            #expect(changes.nextMessageID == library.nextMessageID)
            #expect(changes.nextMailboxID == library.nextMailboxID)
        }
    }

    @Test func commandsThatChangeNothingHaveNoChanges() throws {
        let old = sampleLibrary()
        var library = old
        try library.move(library.ids(.inbox), from: .inbox, to: .inbox)
        library.restore(messageIDs(1, 99))
        library.deletePermanently(messageIDs(2))
        _ = try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) -> BulkOutcome in
            box.setFlagged(true, for: messageIDs(1, 4))  // both already flagged
        }
        try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) in
            try box.move(fromOffsets: [1, 2, 3], toOffset: 3)  // design example 8: no change
        }
        #expect(library.changes(since: old).isEmpty)
    }

    @Test func addingOnTopOfAHundredMessageInboxSavesExactlyOneRow() throws {
        let old = bigLibrary(100)
        var library = old
        let added = try library.add(Draft(subject: "New"), to: .inbox, at: 5)
        let changes = library.changes(since: old)
        #expect(changes.savedMessages == [StoredMessage(message: added, mailbox: .inbox, position: 100)])
        #expect(changes.deletedMessages.isEmpty)
        #expect(changes.savedMailboxes.isEmpty)
        #expect(changes.deletedMailboxes.isEmpty)
        #expect(changes.nextMessageID == 102)
        #expect(changes.nextMailboxID == MailboxID.firstCustom)
    }

    @Test func addingToAnEmptyMailboxSavesOneRowAtPositionZero() throws {
        let old = sampleLibrary()
        var library = old
        let added = try library.add(Draft(subject: "New"), to: homeMailbox, at: 5)
        #expect(library.changes(since: old).savedMessages == [StoredMessage(message: added, mailbox: homeMailbox, position: 0)])
    }

    @Test(arguments: [0, 37, 99])
    func flaggingOneMessageSavesOneRow(offset: Int) throws {
        let old = bigLibrary(100)
        var library = old
        let id = MessageID(Int64(offset + 1))
        _ = try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) -> BulkOutcome in
            box.setFlagged(true, for: [id])
        }
        let changes = library.changes(since: old)
        #expect(changes.savedMessages.count == 1)
        let row = try #require(changes.savedMessages.first)
        #expect(row.message.id == id)
        #expect(row.message.isFlagged)
        #expect(row.mailbox == .inbox)
        #expect(row.position == 99 - offset)
        #expect(changes.deletedMessages.isEmpty)
    }

    @Test func trashingTheTopMessageSavesOnlyThatRowWithItsOrigin() throws {
        let old = sampleLibrary()
        var library = old
        try library.move(messageIDs(1), from: .inbox, to: .trash)
        let changes = library.changes(since: old)
        var expected = try #require(old.message(MessageID(1)))
        expected.origin = Origin(mailbox: .inbox, offset: 0, anchor: MessageID(2))
        #expect(changes.savedMessages == [StoredMessage(message: expected, mailbox: .trash, position: 1)])
        #expect(changes.deletedMessages.isEmpty)
        #expect(changes.savedMailboxes.isEmpty)
    }

    @Test func trashingAMiddleMessageSavesItAndOnlyTheRowsAboveIt() throws {
        let old = sampleLibrary()
        var library = old
        try library.move(messageIDs(4), from: .inbox, to: .trash)
        let changes = library.changes(since: old)
        // Inbox [1 2 3 4 5] had positions 4 3 2 1 0; [1 2 3 5] has 3 2 1 0: 5 keeps its row.
        #expect(changes.savedMessages.map(\.message.id) == messageIDs(1, 2, 3, 4))
        #expect(changes.savedMessages.prefix(3).map(\.position) == [3, 2, 1])
        #expect(changes.savedMessages.prefix(3).allSatisfy { $0.mailbox == .inbox })
        let trashed = try #require(changes.savedMessages.last)
        #expect(trashed.mailbox == .trash)
        #expect(trashed.position == 1)
        #expect(trashed.message.origin == Origin(mailbox: .inbox, offset: 3, anchor: MessageID(5)))
        #expect(changes.deletedMessages.isEmpty)
    }

    @Test func reorderingSavesOnlyTheRowsWhosePositionChanged() throws {
        let old = sampleLibrary()
        var library = old
        try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) in
            try box.move(fromOffsets: [0], toOffset: 2)  // [2 1 3 4 5]
        }
        let changes = library.changes(since: old)
        #expect(changes.savedMessages.map(\.message.id) == messageIDs(1, 2))
        #expect(changes.savedMessages.map(\.position) == [3, 4])
    }

    @Test func deletingTheTopOfTrashPermanentlyDeletesOneRowAndSavesNone() throws {
        var old = sampleLibrary()
        try old.move(messageIDs(2), from: .inbox, to: .trash)  // Trash [2 9]
        var library = old
        library.deletePermanently(messageIDs(2))
        let changes = library.changes(since: old)
        #expect(changes.deletedMessages == messageIDs(2))
        #expect(changes.savedMessages.isEmpty)
        #expect(changes.nextMessageID == old.nextMessageID)
    }

    @Test func deletingTheBottomOfTrashPermanentlyShiftsTheRowsAboveIt() throws {
        var old = sampleLibrary()
        try old.move(messageIDs(2), from: .inbox, to: .trash)  // Trash [2 9]
        var library = old
        library.deletePermanently(messageIDs(9))
        let changes = library.changes(since: old)
        #expect(changes.deletedMessages == messageIDs(9))
        #expect(changes.savedMessages.map(\.message.id) == messageIDs(2))
        #expect(changes.savedMessages.first?.position == 0)
    }

    @Test func emptyingTrashDeletesEveryTrashedRow() throws {
        var old = sampleLibrary()
        try old.move(messageIDs(5, 3), from: .inbox, to: .trash)
        var library = old
        library.emptyTrash()
        let changes = library.changes(since: old)
        #expect(changes.deletedMessages == messageIDs(3, 5, 9))
        #expect(changes.savedMessages.isEmpty)
    }

    @Test func creatingAMailboxSavesItsRowAndTheNextMailboxID() throws {
        let old = sampleLibrary()
        var library = old
        let id = try library.createMailbox(named: " Receipts ")
        let changes = library.changes(since: old)
        #expect(changes.savedMailboxes.map(\.id) == [id])
        #expect(changes.savedMailboxes.map(\.name) == ["Receipts"])
        #expect(changes.savedMailboxes.first == library[id]?.header)
        #expect(changes.deletedMailboxes.isEmpty)
        #expect(changes.savedMessages.isEmpty && changes.deletedMessages.isEmpty)
        #expect(changes.nextMailboxID == old.nextMailboxID + 1)
        #expect(!changes.isEmpty)
    }

    @Test func renamingAMailboxSavesOnlyItsRow() throws {
        let old = sampleLibrary()
        var library = old
        try library.renameMailbox(workMailbox, to: "Office")
        let changes = library.changes(since: old)
        #expect(changes.savedMailboxes.map(\.id) == [workMailbox])
        #expect(changes.savedMailboxes.map(\.name) == ["Office"])
        #expect(changes.savedMessages.isEmpty)
        #expect(changes.deletedMailboxes.isEmpty && changes.deletedMessages.isEmpty)
    }

    @Test func deletingAMailboxDeletesItsRowAndSavesItsMessagesInTrash() throws {
        let old = sampleLibrary()
        var library = old
        try library.deleteMailbox(workMailbox)
        let changes = library.changes(since: old)
        #expect(changes.deletedMailboxes == [workMailbox])
        #expect(changes.savedMailboxes.isEmpty)
        #expect(changes.deletedMessages.isEmpty)
        #expect(changes.savedMessages.map(\.message.id) == messageIDs(10, 11))
        #expect(changes.savedMessages.allSatisfy { $0.mailbox == .trash })
        #expect(changes.savedMessages.map(\.position) == [2, 1])  // Trash [10 11 9]
        #expect(changes.savedMessages.map(\.message.origin) == [
            Origin(mailbox: workMailbox, offset: 0, anchor: MessageID(11)), Origin(mailbox: workMailbox, offset: 1),
        ])
    }

    @Test func restoringSavesTheRowBackInItsMailboxWithoutOrigin() throws {
        var old = sampleLibrary()
        try old.move(messageIDs(1), from: .inbox, to: .trash)
        var library = old
        library.restore(messageIDs(1))
        let changes = library.changes(since: old)
        #expect(changes.savedMessages == [
            StoredMessage(message: try #require(sampleLibrary().message(MessageID(1))), mailbox: .inbox, position: 4)
        ])
    }

    @Test func theChangesFromAnEmptyLibrarySaveEveryMessageAndOwnMailbox() {
        let library = sampleLibrary()
        let changes = library.changes(since: Library())
        #expect(changes.savedMessages.map(\.message.id) == messageIDs(Array(1...11)))
        #expect(changes.savedMailboxes.map(\.id) == [workMailbox, homeMailbox])
        #expect(changes.deletedMessages.isEmpty && changes.deletedMailboxes.isEmpty)
        var model = RowModel(Library())
        model.apply(changes)
        #expect(model == RowModel(library))
    }

    @Test func theNextIDsAreThoseOfTheNewLibrary() throws {
        let old = sampleLibrary()
        var library = old
        try library.add(Draft(subject: "a"), to: .inbox, at: 1)
        try library.createMailbox(named: "b")
        let forward = library.changes(since: old)
        #expect(forward.nextMessageID == 13 && forward.nextMailboxID == 107)
        let backward = old.changes(since: library)
        #expect(backward.nextMessageID == 12 && backward.nextMailboxID == 106)
        #expect(backward.deletedMessages == messageIDs(12))
        #expect(backward.deletedMailboxes == [MailboxID(rawValue: 106)])
    }

    @Test func changesAreListedInIDOrder() throws {
        let old = sampleLibrary()
        var library = old
        try library.move(messageIDs(5, 1), from: .inbox, to: .archive)
        try library.move(messageIDs(10), from: workMailbox, to: .trash)
        let saved = library.changes(since: old).savedMessages.map(\.message.id)
        #expect(saved == saved.sorted())
        #expect(Set(saved).count == saved.count)
    }
}

// MARK: - Property: applying every step's changes keeps the stored rows equal to the library

@Suite struct ChangesPropertyTests {
    static let names = ["Work", "work", "Home", "Receipts", "  Travel ", "", text(41), "Inbox", "Ideas", "Later"]

    /// Runs one random command on `library`; returns what it did, for failure messages.
    static func randomCommand(
        on library: inout Library, random: inout SeededGenerator, clock: Int64
    ) throws(LibraryError) -> String {
        let all = library.mailboxes.map(\.id)
        let ownIDs = all.filter { !$0.isSystem }
        let unknown = MailboxID(rawValue: 9_999)
        let roll = random.below(100)
        switch roll {
        case 0..<22:
            let target = random.chance(1, in: 30) ? unknown : random.pick(all)
            let draft = random.chance(1, in: 8)
                ? Draft(subject: "   ") : Draft(subject: "Subject \(clock)", body: "Body \(clock)")
            let added = try library.add(draft, to: target, at: clock)
            return "add \(added.id) to \(target)"
        case 22..<37:
            let source = random.pick(all.filter { $0 != .trash })
            let ids = random.subset(of: library.ids(source)) + (random.chance(1, in: 5) ? messageIDs(99_999) : [])
            try library.move(ids, from: source, to: .trash)
            return "trash \(ids) from \(source)"
        case 37..<47:
            let ids = random.subset(of: library.ids(.trash)) + (random.chance(1, in: 5) ? messageIDs(1) : [])
            library.restore(ids)
            return "restore \(ids)"
        case 47..<55:
            let source = random.pick(all)
            let destination = random.pick(all + [unknown])
            let ids = random.subset(of: library.ids(source))
            try library.move(ids, from: source, to: destination)
            return "move \(ids) from \(source) to \(destination)"
        case 55..<61:
            let ids = random.subset(of: library.allMessageIDs)
            library.deletePermanently(ids)
            return "delete permanently \(ids)"
        case 61..<63:
            let count = library.emptyTrash()
            return "empty trash (\(count))"
        case 63..<68:
            let name = random.pick(Self.names)
            let id = try library.createMailbox(named: name)
            return "create \(id) \(name)"
        case 68..<71:
            let id = random.pick(all)
            let name = random.pick(Self.names)
            try library.renameMailbox(id, to: name)
            return "rename \(id) to \(name)"
        case 71..<74:
            let id = ownIDs.isEmpty || random.chance(1, in: 4) ? random.pick(all) : random.pick(ownIDs)
            try library.deleteMailbox(id)
            return "delete mailbox \(id)"
        case 74..<86:
            let box = random.pick(all)
            let count = library[box]?.count ?? 0
            let source = random.subset(of: Array(0..<count)) + (random.chance(1, in: 15) ? [count] : [])
            let destination = random.below(count + 2)  // count + 1 is out of range
            try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(fromOffsets: source, toOffset: destination)
            }
            return "reorder \(box) \(source) to \(destination)"
        case 86..<94:
            let box = random.pick(all)
            let ids = random.subset(of: library.ids(box))
            let on = random.chance(1, in: 2)
            let flag = random.chance(1, in: 2)
            _ = try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) -> BulkOutcome in
                flag ? mailbox.setFlagged(on, for: ids) : mailbox.setUnread(on, for: ids)
            }
            return "\(flag ? "flag" : "unread") \(on) \(ids) in \(box)"
        default:
            let box = random.pick(all)
            let id = library.ids(box).isEmpty || random.chance(1, in: 10) ? MessageID(99_999) : random.pick(library.ids(box))
            try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.edit(id, with: Draft(subject: "Edited \(clock)", body: "Changed"))
            }
            return "edit \(id) in \(box)"
        }
    }

    /// Things that must hold for every library a command leaves behind.
    static func invariantProblems(_ library: Library) -> [String] {
        var problems: [String] = []
        let ids = library.allMessageIDs
        if Set(ids).count != ids.count { problems.append("duplicate message ids \(ids)") }
        if let highest = ids.map(\.rawValue).max(), highest >= library.nextMessageID {
            problems.append("nextMessageID \(library.nextMessageID) not above \(highest)")
        }
        if Array(library.mailboxes.prefix(3).map(\.id)) != MailboxID.system { problems.append("system mailboxes not first") }
        let own = library.mailboxes.dropFirst(3).map(\.id)
        if own != own.sorted() { problems.append("own mailboxes out of order \(own)") }
        if let highest = own.map(\.rawValue).max(), highest >= library.nextMailboxID {
            problems.append("nextMailboxID \(library.nextMailboxID) not above \(highest)")
        }
        let names = library.mailboxes.map { $0.name.lowercased() }
        if Set(names).count != names.count { problems.append("duplicate names \(names)") }
        for mailbox in library.mailboxes where mailbox.id != .trash {
            for message in mailbox.messages where message.origin != nil {
                problems.append("\(message.id) in \(mailbox.id) still has an origin")
            }
        }
        return problems
    }

    @Test(arguments: [UInt64(20_240_601), 7, 0xC0FFEE])
    func applyingEveryStepsChangesKeepsTheRowsEqualToTheLibrary(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var library = sampleLibrary()
        var model = RowModel(Library())
        model.apply(library.changes(since: Library()))
        #expect(model == RowModel(library))

        var issued = Set(library.allMessageIDs)
        var highestIssued = library.allMessageIDs.map(\.rawValue).max() ?? 0
        var failures = 0
        var counts = (ok: 0, refused: 0, empty: 0)
        for step in 1...300 {
            var next = library
            let description: String
            do {
                description = try Self.randomCommand(on: &next, random: &random, clock: Int64(step))
                counts.ok += 1
            } catch {
                // A refused command leaves the library exactly as it was.
                if next != library {
                    Issue.record("step \(step): \(error) changed the library")
                    failures += 1
                }
                counts.refused += 1
                next = library
                description = "refused: \(error)"
            }

            for id in next.allMessageIDs where !issued.contains(id) {
                if id.rawValue <= highestIssued { Issue.record("step \(step): id \(id) reused or out of order") }
                issued.insert(id)
                highestIssued = max(highestIssued, id.rawValue)
            }
            for problem in Self.invariantProblems(next) {
                Issue.record("step \(step) (\(description)): \(problem)")
                failures += 1
            }

            let changes = next.changes(since: library)
            if changes.isEmpty { counts.empty += 1 }
            // Only rows that really differ are written, and only existing ones are deleted.
            for row in changes.savedMessages where model.messages[row.message.id] == row {
                Issue.record("step \(step) (\(description)): needless write of \(row.message.id)")
                failures += 1
            }
            for id in changes.deletedMessages where model.messages[id] == nil {
                Issue.record("step \(step) (\(description)): delete of absent row \(id)")
                failures += 1
            }
            for header in changes.savedMailboxes where model.mailboxes[header.id] == header.name {
                Issue.record("step \(step) (\(description)): needless write of mailbox \(header.id)")
                failures += 1
            }
            model.apply(changes)
            let expected = RowModel(next)
            if model != expected {
                Issue.record("step \(step) (\(description)):\n model    \(model)\n expected \(expected)")
                failures += 1
            }
            library = next
            if failures > 5 { break }
        }
        // The run really exercised both outcomes.
        #expect(counts.ok > 150)
        #expect(counts.refused > 5)
        #expect(library.allMessageIDs.count > 3)
    }
}
