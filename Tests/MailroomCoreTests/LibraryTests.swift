import MailroomCore
import Testing
import TestSupport

// MARK: - Helpers shared by the model's tests

/// A message with id `id`, named after it unless told otherwise.
func libraryMessage(
    _ id: Int64, _ subject: String? = nil, unread: Bool = true, flagged: Bool = false, origin: Origin? = nil
) -> Message {
    Message(
        id: MessageID(id), subject: subject ?? "Message \(id)", body: "Body of \(id)", author: "Author \(id % 3)",
        createdAt: 10_000 + id, isUnread: unread, isFlagged: flagged, origin: origin)
}

func messageIDs(_ raw: Int64...) -> [MessageID] { raw.map { MessageID($0) } }
func messageIDs(_ raw: [Int64]) -> [MessageID] { raw.map { MessageID($0) } }

let workMailbox = MailboxID(rawValue: 100)
let homeMailbox = MailboxID(rawValue: 105)

/// Inbox 1–5 with mixed read/flag state, Archive 6–8, Trash holding 9 (trashed earlier from the
/// Archive), and two mailboxes of one's own: Work (10, 11) and Home (empty).
func sampleLibrary() -> Library {
    Library(mailboxes: [
        Mailbox(id: homeMailbox, name: "Home", messages: []),
        Mailbox(id: .trash, name: "Trash", messages: [libraryMessage(9, origin: Origin(mailbox: .archive, offset: 1))]),
        Mailbox(id: .inbox, name: "Inbox", messages: [
            libraryMessage(1, unread: true, flagged: true),
            libraryMessage(2, unread: false, flagged: false),
            libraryMessage(3, unread: true, flagged: false),
            libraryMessage(4, unread: false, flagged: true),
            libraryMessage(5, unread: false, flagged: false),
        ]),
        Mailbox(id: workMailbox, name: "Work", messages: [libraryMessage(10), libraryMessage(11, flagged: true)]),
        Mailbox(id: .archive, name: "Archive", messages: [
            libraryMessage(6, unread: false), libraryMessage(7, flagged: true), libraryMessage(8, unread: false),
        ]),
    ])
}

extension Library {
    /// The ids of `mailbox`, top to bottom; empty when it does not exist.
    func ids(_ mailbox: MailboxID) -> [MessageID] { self[mailbox]?.ids ?? [] }

    var allMessageIDs: [MessageID] { mailboxes.flatMap(\.ids) }
}



/// The members of `items` picked by the bits of `mask`, in order.
func pickBits<T>(_ mask: Int, of items: [T]) -> [T] {
    items.indices.filter { mask & (1 << $0) != 0 }.map { items[$0] }
}

// MARK: - Shape

@Suite struct LibraryShapeTests {
    struct ShapeExample: Sendable, CustomTestStringConvertible {
        let name: String
        let given: [Mailbox]
        let expectedIDs: [MailboxID]
        var testDescription: String { name }
    }

    static let shapes: [ShapeExample] = [
        ShapeExample(name: "nothing at all", given: [], expectedIDs: MailboxID.system),
        ShapeExample(
            name: "only the Archive", given: [Mailbox(id: .archive, name: "Archive")], expectedIDs: MailboxID.system),
        ShapeExample(
            name: "Trash before Inbox, no Archive",
            given: [Mailbox(id: .trash, name: "Trash"), Mailbox(id: .inbox, name: "Inbox")],
            expectedIDs: MailboxID.system),
        ShapeExample(
            name: "only a custom mailbox", given: [Mailbox(id: MailboxID(rawValue: 100), name: "Work")],
            expectedIDs: MailboxID.system + [MailboxID(rawValue: 100)]),
        ShapeExample(
            name: "custom mailboxes out of order among shuffled system ones",
            given: [
                Mailbox(id: MailboxID(rawValue: 107), name: "Later"), Mailbox(id: .trash, name: "Trash"),
                Mailbox(id: MailboxID(rawValue: 101), name: "Sooner"), Mailbox(id: .archive, name: "Archive"),
                Mailbox(id: MailboxID(rawValue: 103), name: "Middle"), Mailbox(id: .inbox, name: "Inbox"),
            ],
            expectedIDs: MailboxID.system + [101, 103, 107].map { MailboxID(rawValue: $0) }),
    ]

    @Test func anEmptyLibraryHasInboxArchiveAndTrashInThatOrder() {
        let library = Library()
        #expect(library.mailboxes.map(\.id) == [.inbox, .archive, .trash])
        #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash"])
        #expect(library.mailboxes.allSatisfy { $0.isEmpty })
        #expect(library.nextMessageID == 1)
        #expect(library.nextMailboxID == MailboxID.firstCustom)
    }

    @Test(arguments: shapes)
    func systemMailboxesComeFirstInOrderAndCustomOnesFollowByID(_ example: ShapeExample) {
        let library = Library(mailboxes: example.given)
        #expect(library.mailboxes.map(\.id) == example.expectedIDs)
        #expect(Array(library.mailboxes.prefix(3).map(\.name)) == ["Inbox", "Archive", "Trash"])
        #expect(library.nextMailboxID > library.mailboxes.map(\.id.rawValue).max()!)
        #expect(library.nextMailboxID >= MailboxID.firstCustom)
    }

    @Test func givenMailboxesKeepTheirNamesAndMessages() {
        let library = sampleLibrary()
        #expect(library.mailboxes.map(\.id) == [.inbox, .archive, .trash, workMailbox, homeMailbox])
        #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Work", "Home"])
        #expect(library.ids(.inbox) == messageIDs(1, 2, 3, 4, 5))
        #expect(library.ids(.archive) == messageIDs(6, 7, 8))
        #expect(library.ids(.trash) == messageIDs(9))
        #expect(library.ids(workMailbox) == messageIDs(10, 11))
        #expect(library[homeMailbox]?.isEmpty == true)
    }

    @Test(arguments: [Int64(1), 3, 12, 13, 500])
    func nextMessageIDIsAboveEveryExistingID(requested: Int64) {
        let library = Library(mailboxes: sampleLibrary().mailboxes, nextMessageID: requested)
        let highest = library.allMessageIDs.map(\.rawValue).max()!
        #expect(highest == 11)
        #expect(library.nextMessageID == max(requested, 12))
    }

    @Test func nextMessageIDCountsMessagesInEveryMailboxIncludingTrash() {
        let library = Library(mailboxes: [
            Mailbox(id: .inbox, name: "Inbox", messages: [libraryMessage(2)]),
            Mailbox(id: .trash, name: "Trash", messages: [libraryMessage(40, origin: Origin(mailbox: .inbox, offset: 0))]),
            Mailbox(id: MailboxID(rawValue: 120), name: "Old", messages: [libraryMessage(17)]),
        ])
        #expect(library.nextMessageID == 41)
        #expect(library.nextMailboxID == 121)
    }

    @Test(arguments: [Int64(0), 50, 100, 106, 300])
    func nextMailboxIDIsAboveEveryMailboxAndNeverBelowTheFirstCustomID(requested: Int64) {
        let library = Library(mailboxes: sampleLibrary().mailboxes, nextMailboxID: requested)
        #expect(library.nextMailboxID == max(requested, 106))
        #expect(Library(nextMailboxID: requested).nextMailboxID == max(requested, MailboxID.firstCustom))
    }

    @Test func aLibraryBuiltFromAnInboxHoldsItsMessagesInTheInbox() {
        let library = Library(inbox: mailbox("A", "B", "C"))
        #expect(library.mailboxes.map(\.id) == MailboxID.system)
        #expect(library[.inbox]?.subjects == ["A", "B", "C"])
        #expect(library.nextMessageID == 4)
    }

    @Test func lookupsFindMessagesAndMailboxesAnywhere() {
        let library = sampleLibrary()
        #expect(library[workMailbox]?.name == "Work")
        #expect(library[MailboxID(rawValue: 999)] == nil)
        #expect(library.mailbox(of: MessageID(7)) == .archive)
        #expect(library.mailbox(of: MessageID(9)) == .trash)
        #expect(library.mailbox(of: MessageID(11)) == workMailbox)
        #expect(library.mailbox(of: MessageID(99)) == nil)
        #expect(library.message(MessageID(4))?.isFlagged == true)
        #expect(library.message(MessageID(99)) == nil)
    }

    /// A store rebuilds the library from its rows (`Mailbox(id:name:messages:)` per mailbox). The
    /// rebuilt value holds exactly the same mailboxes, messages and next ids, so it should be equal.
    @Test func aLibraryRebuiltFromItsRowsEqualsTheOriginal() throws {
        var library = Library()
        try library.add(Draft(subject: "first"), to: .inbox, at: 1)
        try library.add(Draft(subject: "second"), to: .archive, at: 2)
        try library.add(Draft(subject: "third"), to: .inbox, at: 3)
        let rebuilt = Library(
            mailboxes: library.mailboxes.map { Mailbox(id: $0.id, name: $0.name, messages: $0.messages) },
            nextMessageID: library.nextMessageID, nextMailboxID: library.nextMailboxID)
        #expect(rebuilt.mailboxes.map(\.messages) == library.mailboxes.map(\.messages))
        #expect(rebuilt.mailboxes.map(\.name) == library.mailboxes.map(\.name))
        #expect(rebuilt.nextMessageID == library.nextMessageID)
        #expect(rebuilt.nextMailboxID == library.nextMailboxID)
        // Same content, so the values should be equal; a hidden per-mailbox id counter must not tell them apart.
        #expect(rebuilt == library)
    }
}

// MARK: - Add

@Suite struct LibraryAddTests {
    struct BadDraft: Sendable, CustomTestStringConvertible {
        let name: String
        let draft: Draft
        let problems: [DraftError.Problem]
        var testDescription: String { name }
    }

    static let badDrafts: [BadDraft] = [
        BadDraft(name: "empty subject", draft: Draft(subject: ""), problems: [.subjectEmpty]),
        BadDraft(name: "white space subject", draft: Draft(subject: " \t\n "), problems: [.subjectEmpty]),
        BadDraft(name: "201-character subject", draft: Draft(subject: text(201)), problems: [.subjectTooLong]),
        BadDraft(name: "10,001-character body", draft: Draft(subject: "Hi", body: text(10_001)), problems: [.bodyTooLong]),
        BadDraft(name: "101-character author", draft: Draft(subject: "Hi", author: text(101)), problems: [.authorTooLong]),
        BadDraft(
            name: "everything wrong", draft: Draft(subject: "", body: text(10_001), author: text(101)),
            problems: [.subjectEmpty, .bodyTooLong, .authorTooLong]),
    ]

    @Test(arguments: [MailboxID.inbox, .archive, workMailbox, homeMailbox])
    func addPutsANewUnreadMessageOnTopOfTheNamedMailboxWithALibraryWideUniqueID(target: MailboxID) throws {
        var library = sampleLibrary()
        let before = library
        let added = try library.add(Draft(subject: "  Hello \n", body: "Text  ", author: " Ann "), to: target, at: 77)
        #expect(added.id == MessageID(12))
        #expect(!before.allMessageIDs.contains(added.id))
        #expect(added.subject == "Hello")
        #expect(added.body == "Text")
        #expect(added.author == "Ann")
        #expect(added.createdAt == 77)
        #expect(added.isUnread)
        #expect(!added.isFlagged)
        #expect(added.origin == nil)
        #expect(library[target]?.messages.first == added)
        #expect(library.ids(target) == [added.id] + before.ids(target))
        #expect(library.nextMessageID == 13)
        for other in before.mailboxes where other.id != target {
            #expect(library[other.id] == other)
        }
    }

    @Test func eachAddGetsAFreshIDWhicheverMailboxItGoesTo() throws {
        var library = sampleLibrary()
        var seen = Set(library.allMessageIDs)
        for (step, target) in [MailboxID.archive, .inbox, workMailbox, .archive, homeMailbox, .inbox].enumerated() {
            let added = try library.add(Draft(subject: "New \(step)"), to: target, at: Int64(step))
            #expect(!seen.contains(added.id))
            #expect(added.id.rawValue < library.nextMessageID)
            seen.insert(added.id)
        }
        #expect(Set(library.allMessageIDs).count == library.allMessageIDs.count)
        #expect(library.ids(.archive).prefix(2) == [MessageID(15), MessageID(12)])
    }

    @Test(arguments: badDrafts)
    func anInvalidDraftThrowsAndChangesNothing(_ example: BadDraft) {
        var library = sampleLibrary()
        let before = library
        let error = #expect(throws: LibraryError.self) { try library.add(example.draft, to: .inbox, at: 5) }
        guard case .mailbox(.draft(let draftError)) = error else {
            Issue.record("expected .mailbox(.draft), got \(String(describing: error))")
            return
        }
        #expect(draftError.problems == example.problems)
        #expect(library == before)
    }

    @Test func anInvalidDraftDoesNotSpendAnID() throws {
        var library = sampleLibrary()
        _ = try? library.add(Draft(subject: ""), to: .inbox, at: 1)
        let added = try library.add(Draft(subject: "ok"), to: .inbox, at: 2)
        #expect(added.id == MessageID(12))
    }

    @Test func addingToAnUnknownMailboxThrowsAndChangesNothing() {
        var library = sampleLibrary()
        let before = library
        let nowhere = MailboxID(rawValue: 555)
        #expect(throws: LibraryError.unknownMailbox(nowhere)) {
            try library.add(Draft(subject: "Hello"), to: nowhere, at: 1)
        }
        #expect(library == before)
    }
}

// MARK: - Trash and restore

@Suite struct LibraryTrashTests {
    @Test(arguments: 0..<32)
    func trashingAnySubsetOfTheInboxThenRestoringItGivesBackTheSameLibrary(mask: Int) throws {
        let original = sampleLibrary()
        var library = original
        let chosen = pickBits(mask, of: original.ids(.inbox))
        let outcome = try library.move(chosen.reversed(), from: .inbox, to: .trash)
        #expect(outcome.applied == chosen)
        #expect(outcome.missing.isEmpty)
        #expect(library.ids(.inbox) == original.ids(.inbox).filter { !chosen.contains($0) })
        #expect(library.ids(.trash) == chosen + original.ids(.trash))
        for id in chosen {
            let offset = try #require(original[.inbox]?.offset(of: id))
            let below = original.ids(.inbox).dropFirst(offset + 1).first
            #expect(library.message(id)?.origin == Origin(mailbox: .inbox, offset: offset, anchor: below))
        }

        let restored = library.restore(chosen.reversed())
        #expect(Set(restored.applied) == Set(chosen))
        #expect(restored.missing.isEmpty)
        #expect(library == original)
        #expect(library.allMessageIDs.allSatisfy { library.mailbox(of: $0) == .trash || library.message($0)?.origin == nil })
    }

    @Test(arguments: [false, true])
    func trashingFromTwoMailboxesThenRestoringAllAtOnceGivesBackTheSameLibrary(inboxFirst: Bool) throws {
        let original = sampleLibrary()
        for inboxMask in 0..<32 {
            for workMask in 0..<4 {
                var library = original
                let fromInbox = pickBits(inboxMask, of: original.ids(.inbox))
                let fromWork = pickBits(workMask, of: original.ids(workMailbox))
                if inboxFirst {
                    try library.move(fromInbox, from: .inbox, to: .trash)
                    try library.move(fromWork, from: workMailbox, to: .trash)
                } else {
                    try library.move(fromWork, from: workMailbox, to: .trash)
                    try library.move(fromInbox, from: .inbox, to: .trash)
                }
                let outcome = library.restore(fromWork + fromInbox)
                #expect(Set(outcome.applied) == Set(fromInbox + fromWork))
                #expect(library == original, "inbox \(fromInbox), work \(fromWork)")
            }
        }
    }

    @Test func undoingEachDeleteInTurnGivesBackTheSameLibrary() throws {
        let original = sampleLibrary()
        var library = original
        try library.move(messageIDs(1), from: .inbox, to: .trash)
        try library.move(messageIDs(3, 5), from: .inbox, to: .trash)
        try library.move(messageIDs(2), from: .inbox, to: .trash)
        #expect(library.ids(.inbox) == messageIDs(4))
        library.restore(messageIDs(2))
        library.restore(messageIDs(3, 5))
        library.restore(messageIDs(1))
        #expect(library == original)
    }

    struct SequentialDeletes: Sendable, CustomTestStringConvertible {
        let name: String
        let batches: [[Int64]]
        var testDescription: String { name }
    }

    /// Delete one row, then another (two separate deletes, as a person does on the page), then go to
    /// Trash, Select All and Restore: every mailbox must be exactly as it was.
    @Test(arguments: [
        SequentialDeletes(name: "the top row twice", batches: [[1], [2]]),
        SequentialDeletes(name: "A, then C", batches: [[1], [3]]),
        SequentialDeletes(name: "B and D, then A", batches: [[2, 4], [1]]),
        SequentialDeletes(name: "C, then A (offsets already ascending)", batches: [[3], [1]]),
    ])
    func restoringSeveralSeparateDeletesFromOneMailboxAtOnceGivesBackTheSameOrder(_ example: SequentialDeletes) throws {
        let original = sampleLibrary()
        var library = original
        for batch in example.batches {
            try library.move(messageIDs(batch), from: .inbox, to: .trash)
        }
        library.restore(example.batches.flatMap { messageIDs($0) })
        #expect(library.ids(.inbox) == original.ids(.inbox))
        #expect(library == original)
    }

    /// The property behind the cases above: any run of deletes from untouched mailboxes, restored
    /// all at once, leaves the library as it was.
    @Test func anyRunOfDeletesRestoredAllAtOnceGivesBackTheSameLibrary() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let original = sampleLibrary()
        var failures: [String] = []
        for _ in 0..<300 {
            var library = original
            var trashed: [MessageID] = []
            var log: [String] = []
            for _ in 0..<(1 + random.below(4)) {
                let source = random.pick([MailboxID.inbox, .archive, workMailbox])
                let batch = random.nonEmptySubset(of: library.ids(source))
                guard !batch.isEmpty else { continue }
                try library.move(batch, from: source, to: .trash)
                trashed += batch
                log.append("\(batch) from \(source)")
            }
            library.restore(trashed)
            if library != original {
                failures.append("\(log.joined(separator: ", ")) → inbox \(library.ids(.inbox)), archive "
                    + "\(library.ids(.archive)), work \(library.ids(workMailbox))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 300 runs differ, e.g. \(failures.prefix(3).joined(separator: "; "))")
    }

    @Test func trashedMessagesRememberTheirMailboxAndOffset() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(4, 2), from: .inbox, to: .trash)
        try library.move(messageIDs(8), from: .archive, to: .trash)
        try library.move(messageIDs(11), from: workMailbox, to: .trash)
        #expect(library.ids(.trash) == messageIDs(11, 8, 2, 4, 9))
        #expect(library.message(MessageID(2))?.origin == Origin(mailbox: .inbox, offset: 1, anchor: MessageID(3)))
        #expect(library.message(MessageID(4))?.origin == Origin(mailbox: .inbox, offset: 3, anchor: MessageID(5)))
        #expect(library.message(MessageID(8))?.origin == Origin(mailbox: .archive, offset: 2))
        #expect(library.message(MessageID(11))?.origin == Origin(mailbox: workMailbox, offset: 1))
        #expect(library.message(MessageID(9))?.origin == Origin(mailbox: .archive, offset: 1))
        // Flags and read state travel with the message.
        #expect(library.message(MessageID(4))?.isFlagged == true)
        #expect(library.message(MessageID(4))?.isUnread == false)
    }

    @Test func restoringIDsThatAreNotInTrashReportsThemAsMissing() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(3), from: .inbox, to: .trash)
        let before = library
        let outcome = library.restore(messageIDs(99, 1, 7))
        #expect(outcome.applied.isEmpty)
        #expect(outcome.missing == messageIDs(1, 7, 99))
        #expect(library == before)

        let mixed = library.restore(messageIDs(42, 3, 2))
        #expect(mixed.applied == messageIDs(3))
        #expect(mixed.missing == messageIDs(2, 42))
        #expect(library == sampleLibrary())
    }

    @Test func restoringNothingChangesNothing() {
        var library = sampleLibrary()
        let outcome = library.restore([MessageID]())
        #expect(outcome.applied.isEmpty && outcome.missing.isEmpty)
        #expect(library == sampleLibrary())
    }

    /// It goes back above the message that was below it, wherever that one is now.
    @Test func restoringAfterNewMessagesArrivedPutsTheMessageBackBetweenItsOldNeighbours() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(4), from: .inbox, to: .trash)  // offset 3, above 5
        let first = try library.add(Draft(subject: "New 1"), to: .inbox, at: 1)
        let second = try library.add(Draft(subject: "New 2"), to: .inbox, at: 2)
        library.restore(messageIDs(4))
        #expect(library.ids(.inbox) == [second.id, first.id] + messageIDs(1, 2, 3, 4, 5))
        #expect(library.message(MessageID(4))?.origin == nil)
        #expect(library.message(MessageID(4)) == sampleLibrary().message(MessageID(4)))
    }

    @Test func restoringIntoAMailboxThatShrankClampsTheOffsetToItsSize() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(5), from: .inbox, to: .trash)  // offset 4
        try library.move(messageIDs(1, 2, 3), from: .inbox, to: .archive)
        #expect(library.ids(.inbox) == messageIDs(4))
        let outcome = library.restore(messageIDs(5))
        #expect(outcome.applied == messageIDs(5))
        #expect(library.ids(.inbox) == messageIDs(4, 5))

        var emptied = sampleLibrary()
        try emptied.move(messageIDs(8), from: .archive, to: .trash)  // offset 2
        try emptied.move(messageIDs(6, 7), from: .archive, to: .inbox)
        emptied.restore(messageIDs(8))
        #expect(emptied.ids(.archive) == messageIDs(8))
    }

    @Test func anOlderTrashedMessageGoesBackToItsOwnMailbox() {
        var library = sampleLibrary()
        library.restore(messageIDs(9))
        #expect(library.ids(.archive) == messageIDs(6, 9, 7, 8))
        #expect(library[.trash]?.isEmpty == true)
        #expect(library.message(MessageID(9))?.origin == nil)
    }
}

// MARK: - Move

@Suite struct LibraryMoveTests {
    @Test func moveBetweenMailboxesPutsMessagesOnTopOfTheDestinationInTheirOriginalOrder() throws {
        var library = sampleLibrary()
        let before = library
        let outcome = try library.move(messageIDs(4, 2), from: .inbox, to: .archive)
        #expect(outcome.applied == messageIDs(2, 4))
        #expect(outcome.missing.isEmpty)
        #expect(library.ids(.inbox) == messageIDs(1, 3, 5))
        #expect(library.ids(.archive) == messageIDs(2, 4, 6, 7, 8))
        #expect(library.message(MessageID(2)) == before.message(MessageID(2)))
        #expect(library.message(MessageID(4)) == before.message(MessageID(4)))
        #expect(library[.trash] == before[.trash])
        #expect(library[workMailbox] == before[workMailbox])
    }

    @Test func moveIntoAnEmptyMailboxOfOnesOwn() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(5, 1, 3), from: .inbox, to: homeMailbox)
        #expect(library.ids(homeMailbox) == messageIDs(1, 3, 5))
        #expect(library.ids(.inbox) == messageIDs(2, 4))
    }

    @Test func movingOutOfTrashClearsTheOrigin() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(2, 3), from: .inbox, to: .trash)
        let outcome = try library.move(messageIDs(9, 3), from: .trash, to: workMailbox)
        #expect(outcome.applied == messageIDs(3, 9))
        #expect(library.ids(workMailbox) == messageIDs(3, 9, 10, 11))
        #expect(library.ids(.trash) == messageIDs(2))
        #expect(library.message(MessageID(3))?.origin == nil)
        #expect(library.message(MessageID(9))?.origin == nil)
        #expect(library.message(MessageID(2))?.origin == Origin(mailbox: .inbox, offset: 1, anchor: MessageID(3)))
        #expect(library.message(MessageID(3))?.isUnread == true)
    }

    @Test(arguments: [MailboxID.inbox, .trash, workMailbox])
    func movingToTheSameMailboxChangesNothing(box: MailboxID) throws {
        var library = sampleLibrary()
        let before = library
        let present = library.ids(box).reversed() as [MessageID]
        let outcome = try library.move(present + messageIDs(99), from: box, to: box)
        #expect(library == before)
        #expect(outcome.applied == before.ids(box))
        #expect(outcome.missing == messageIDs(99))
    }

    @Test func idsNotInTheSourceAreReportedMissingAndTheRestMove() throws {
        var library = sampleLibrary()
        let outcome = try library.move(messageIDs(99, 3, 7, 1), from: .inbox, to: .archive)
        #expect(outcome.applied == messageIDs(1, 3))
        #expect(outcome.missing == messageIDs(7, 99))
        #expect(library.ids(.archive) == messageIDs(1, 3, 6, 7, 8))
        #expect(library.ids(.inbox) == messageIDs(2, 4, 5))
    }

    @Test func movingOnlyMissingIDsChangesNothing() throws {
        var library = sampleLibrary()
        let outcome = try library.move(messageIDs(98, 99), from: .inbox, to: .trash)
        #expect(outcome.applied.isEmpty)
        #expect(outcome.missing == messageIDs(98, 99))
        #expect(library == sampleLibrary())
    }

    @Test(arguments: [(MailboxID(rawValue: 555), MailboxID.inbox), (MailboxID.inbox, MailboxID(rawValue: 555))])
    func movingFromOrToAnUnknownMailboxThrowsAndChangesNothing(source: MailboxID, destination: MailboxID) {
        var library = sampleLibrary()
        #expect(throws: LibraryError.unknownMailbox(MailboxID(rawValue: 555))) {
            try library.move(messageIDs(1), from: source, to: destination)
        }
        #expect(library == sampleLibrary())
    }
}

// MARK: - Permanent deletes

@Suite struct LibraryPermanentDeleteTests {
    @Test func deletePermanentlyOnlyAffectsMessagesInTrash() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(2, 3), from: .inbox, to: .trash)
        let before = library
        let outcome = library.deletePermanently(messageIDs(1, 3, 9, 99))
        #expect(outcome.applied == messageIDs(3, 9))
        #expect(outcome.missing == messageIDs(1, 99))
        #expect(library.ids(.trash) == messageIDs(2))
        #expect(library.message(MessageID(3)) == nil)
        #expect(library.message(MessageID(9)) == nil)
        #expect(library[.inbox] == before[.inbox])
        #expect(library[.archive] == before[.archive])
        #expect(library.nextMessageID == before.nextMessageID)
    }

    @Test func emptyTrashReturnsTheCountAndEmptiesTrash() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(1, 5), from: .inbox, to: .trash)
        let before = library
        #expect(library.emptyTrash() == 3)
        #expect(library[.trash]?.isEmpty == true)
        for box in before.mailboxes where box.id != .trash {
            #expect(library[box.id] == box)
        }
        #expect(library.emptyTrash() == 0)
    }

    @Test func idsAreNeverReusedAfterEmptyingTrash() throws {
        var library = Library()
        for step in 1...3 { try library.add(Draft(subject: "m\(step)"), to: .inbox, at: Int64(step)) }
        try library.move(library.ids(.inbox), from: .inbox, to: .trash)
        library.emptyTrash()
        #expect(library.allMessageIDs.isEmpty)
        let next = try library.add(Draft(subject: "after"), to: .inbox, at: 9)
        #expect(next.id == MessageID(4))
    }

    @Test func idsAreNeverReusedAfterDeletingTheNewestPermanently() throws {
        var library = sampleLibrary()
        let newest = try library.add(Draft(subject: "newest"), to: .inbox, at: 1)
        try library.move([newest.id], from: .inbox, to: .trash)
        library.deletePermanently([newest.id])
        let next = try library.add(Draft(subject: "next"), to: .inbox, at: 2)
        #expect(next.id.rawValue > newest.id.rawValue)
        // Also once reloaded with the stored next id.
        let reloaded = Library(mailboxes: library.mailboxes, nextMessageID: library.nextMessageID)
        #expect(reloaded.nextMessageID > next.id.rawValue)
    }
}

// MARK: - Mailboxes of one's own

@Suite struct LibraryMailboxTests {
    @Test func createMailboxTrimsTheNameAndAddsItAtTheEndWithAFreshID() throws {
        var library = sampleLibrary()
        let id = try library.createMailbox(named: "  Receipts \t")
        #expect(id == MailboxID(rawValue: 106))
        #expect(library.mailboxes.last?.id == id)
        #expect(library[id]?.name == "Receipts")
        #expect(library[id]?.isEmpty == true)
        #expect(library.nextMailboxID == 107)
        let another = try library.createMailbox(named: "Travel")
        #expect(another == MailboxID(rawValue: 107))
        #expect(library.mailboxes.map(\.id).suffix(2) == [id, another])
    }

    @Test func theFirstMailboxOfOnesOwnGetsTheFirstCustomID() throws {
        var library = Library()
        let id = try library.createMailbox(named: "Work")
        #expect(id.rawValue == MailboxID.firstCustom)
        #expect(!id.isSystem)
    }

    @Test func aFortyCharacterNameIsAccepted() throws {
        var library = sampleLibrary()
        let id = try library.createMailbox(named: " " + text(40) + " ")
        #expect(library[id]?.name == text(40))
    }

    @Test(arguments: ["", "   ", "\t\n", text(41), " " + text(41, "é") + " ", "Inbox", "inbox", "TRASH", "archive",
                      "work", " WORK ", "Home"])
    func createMailboxRejectsEmptyTooLongAndTakenNames(name: String) {
        var library = sampleLibrary()
        let error = #expect(throws: LibraryError.self) { try library.createMailbox(named: name) }
        guard case .invalidName(let reason) = error else {
            Issue.record("expected .invalidName, got \(String(describing: error))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(library == sampleLibrary())
    }

    @Test func renameTrimsTheNameAndKeepsTheMessagesAndPlace() throws {
        var library = sampleLibrary()
        try library.renameMailbox(workMailbox, to: "  Office ")
        #expect(library[workMailbox]?.name == "Office")
        #expect(library.ids(workMailbox) == messageIDs(10, 11))
        #expect(library.mailboxes.map(\.id) == sampleLibrary().mailboxes.map(\.id))
    }

    @Test func renameMayChangeOnlyTheCaseOfTheSameMailbox() throws {
        var library = sampleLibrary()
        try library.renameMailbox(workMailbox, to: "WORK")
        #expect(library[workMailbox]?.name == "WORK")
    }

    @Test(arguments: ["home", "Inbox", "", text(41)])
    func renameRejectsInvalidOrTakenNames(name: String) {
        var library = sampleLibrary()
        let error = #expect(throws: LibraryError.self) { try library.renameMailbox(workMailbox, to: name) }
        guard case .invalidName = error else {
            Issue.record("expected .invalidName, got \(String(describing: error))")
            return
        }
        #expect(library == sampleLibrary())
    }

    @Test(arguments: MailboxID.system)
    func systemMailboxesCannotBeRenamed(id: MailboxID) {
        var library = sampleLibrary()
        #expect(throws: LibraryError.systemMailbox(id)) { try library.renameMailbox(id, to: "Elsewhere") }
        #expect(library == sampleLibrary())
    }

    @Test(arguments: MailboxID.system)
    func systemMailboxesCannotBeDeleted(id: MailboxID) {
        var library = sampleLibrary()
        #expect(throws: LibraryError.systemMailbox(id)) { try library.deleteMailbox(id) }
        #expect(library == sampleLibrary())
    }

    @Test func renamingOrDeletingAnUnknownMailboxThrows() {
        var library = sampleLibrary()
        let nowhere = MailboxID(rawValue: 555)
        #expect(throws: LibraryError.unknownMailbox(nowhere)) { try library.renameMailbox(nowhere, to: "X") }
        #expect(throws: LibraryError.unknownMailbox(nowhere)) { try library.deleteMailbox(nowhere) }
        #expect(library == sampleLibrary())
    }

    @Test func deleteMailboxMovesItsMessagesToTrashAndRemovesIt() throws {
        var library = sampleLibrary()
        let count = try library.deleteMailbox(workMailbox)
        #expect(count == 2)
        #expect(library[workMailbox] == nil)
        #expect(library.mailboxes.map(\.id) == [.inbox, .archive, .trash, homeMailbox])
        #expect(library.ids(.trash) == messageIDs(10, 11, 9))
        #expect(library.message(MessageID(10))?.origin == Origin(mailbox: workMailbox, offset: 0, anchor: MessageID(11)))
        #expect(library.message(MessageID(11))?.origin == Origin(mailbox: workMailbox, offset: 1))
        #expect(library.message(MessageID(11))?.isFlagged == true)
        #expect(library.allMessageIDs.count == sampleLibrary().allMessageIDs.count)
    }

    @Test func deletingAnEmptyMailboxReturnsZero() throws {
        var library = sampleLibrary()
        #expect(try library.deleteMailbox(homeMailbox) == 0)
        #expect(library[homeMailbox] == nil)
        #expect(library[.trash] == sampleLibrary()[.trash])
    }

    @Test func restoringMessagesOfADeletedMailboxPutsThemInTheInbox() throws {
        var library = sampleLibrary()
        try library.deleteMailbox(workMailbox)
        let outcome = library.restore(messageIDs(11, 10))
        #expect(Set(outcome.applied) == Set(messageIDs(10, 11)))
        #expect(outcome.missing.isEmpty)
        let inbox = library.ids(.inbox)
        #expect(inbox.count == 7)
        #expect(Set(inbox) == Set(messageIDs(1, 2, 3, 4, 5, 10, 11)))
        #expect(inbox.filter { $0.rawValue >= 10 } == messageIDs(10, 11))
        #expect(inbox.filter { $0.rawValue < 10 } == messageIDs(1, 2, 3, 4, 5))
        #expect(library.message(MessageID(10))?.origin == nil)
        #expect(library.message(MessageID(11)) == sampleLibrary().message(MessageID(11)))
        #expect(library.ids(.trash) == messageIDs(9))
    }

    @Test func aDeletedMailboxsIDIsNotReused() throws {
        var library = sampleLibrary()
        let made = try library.createMailbox(named: "Temp")
        try library.deleteMailbox(made)
        let next = try library.createMailbox(named: "Temp")
        #expect(next.rawValue > made.rawValue)
    }
}

// MARK: - Commands inside one mailbox

@Suite struct LibraryUpdateTests {
    @Test func updateRunsAReorderOnOneMailboxOnly() throws {
        var library = sampleLibrary()
        try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) in
            try box.move(fromOffsets: [0], toOffset: 2)
        }
        #expect(library.ids(.inbox) == messageIDs(2, 1, 3, 4, 5))
        for box in sampleLibrary().mailboxes where box.id != .inbox {
            #expect(library[box.id] == box)
        }
    }

    @Test func updateReturnsTheCommandsResult() throws {
        var library = sampleLibrary()
        let outcome = try library.update(.archive) { (box: inout Mailbox) throws(MailboxError) -> BulkOutcome in
            box.setFlagged(true, for: messageIDs(8, 6, 1))
        }
        #expect(outcome.applied == messageIDs(6, 8))
        #expect(outcome.missing == messageIDs(1))
        #expect(library.message(MessageID(6))?.isFlagged == true)
        #expect(library.message(MessageID(8))?.isFlagged == true)
        #expect(library.message(MessageID(1)) == sampleLibrary().message(MessageID(1)))
    }

    @Test func updateCanReorderTrashWithoutLosingOrigins() throws {
        var library = sampleLibrary()
        try library.move(messageIDs(2), from: .inbox, to: .trash)
        try library.update(.trash) { (box: inout Mailbox) throws(MailboxError) in
            try box.move(fromOffsets: [0], toOffset: 2)
        }
        #expect(library.ids(.trash) == messageIDs(9, 2))
        #expect(library.message(MessageID(9))?.origin == Origin(mailbox: .archive, offset: 1))
        library.restore(messageIDs(2))
        #expect(library == sampleLibrary())
    }

    @Test func updateWrapsAnOffsetErrorAndChangesNothing() {
        var library = sampleLibrary()
        let error = #expect(throws: LibraryError.self) {
            try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) in
                try box.move(fromOffsets: [9], toOffset: 0)
            }
        }
        guard case .mailbox(.offset(let offsetError)) = error else {
            Issue.record("expected .mailbox(.offset), got \(String(describing: error))")
            return
        }
        #expect(offsetError.offset == 9)
        #expect(offsetError.validRange == 0..<5)
        #expect(library == sampleLibrary())
    }

    @Test func updateWrapsAnUnknownMessage() {
        var library = sampleLibrary()
        #expect(throws: LibraryError.mailbox(.unknownMessage(MessageID(7)))) {
            try library.update(.inbox) { (box: inout Mailbox) throws(MailboxError) in
                try box.edit(MessageID(7), with: Draft(subject: "x"))
            }
        }
        #expect(library == sampleLibrary())
    }

    @Test func updateOfAnUnknownMailboxThrowsWithoutRunningTheCommand() {
        var library = sampleLibrary()
        var ran = false
        #expect(throws: LibraryError.unknownMailbox(MailboxID(rawValue: 555))) {
            try library.update(MailboxID(rawValue: 555)) { (_: inout Mailbox) throws(MailboxError) in ran = true }
        }
        #expect(!ran)
        #expect(library == sampleLibrary())
    }

    @Test func theErrorMessagesReadWell() {
        #expect(LibraryError.unknownMailbox(workMailbox).message == "There is no mailbox 100.")
        #expect(LibraryError.systemMailbox(.inbox).message.contains("cannot be renamed or deleted"))
        #expect(LibraryError.invalidName("A mailbox needs a name.").message == "A mailbox needs a name.")
        #expect(LibraryError.mailbox(.unknownMessage(MessageID(3))).message == "There is no message 3.")
    }
}
