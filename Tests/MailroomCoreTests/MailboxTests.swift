import MailroomCore
import Testing

@Suite struct MailboxAddTests {
    @Test func addPutsANewUnreadUnflaggedMessageOnTopWithATrimmedSubject() throws {
        var box = mailbox("A", "B")
        box.setUnread(false, for: box.ids)
        let added = try box.add(Draft(subject: "  New one \n", body: "Body  ", author: " Bo "), at: 42)
        #expect(box.subjects == ["New one", "A", "B"])
        #expect(box.messages.first == added)
        #expect(added.subject == "New one")
        #expect(added.body == "Body")
        #expect(added.author == "Bo")
        #expect(added.createdAt == 42)
        #expect(added.isUnread)
        #expect(!added.isFlagged)
        #expect(box.unreadCount == 1)
        #expect(!Set([MessageID(1), MessageID(2)]).contains(added.id))
    }

    @Test func eachAddGoesAboveThePreviousOneWithAFreshID() throws {
        var box = Mailbox()
        let first = try box.add(Draft(subject: "first"), at: 1)
        let second = try box.add(Draft(subject: "second"), at: 2)
        let third = try box.add(Draft(subject: "third"), at: 3)
        #expect(box.subjects == ["third", "second", "first"])
        #expect(box.ids == [third.id, second.id, first.id])
        #expect(Set(box.ids).count == 3)
    }

    @Test(arguments: invalidDrafts)
    func anInvalidDraftThrowsAndChangesNothing(_ example: InvalidDraft) {
        var box = mailbox("A", "B")
        let before = box
        let error = #expect(throws: MailboxError.self) { try box.add(example.draft, at: 5) }
        guard case .draft(let draftError) = error else {
            Issue.record("expected .draft, got \(String(describing: error))")
            return
        }
        #expect(draftError.problems == example.problems)
        #expect(box == before)
        // The failed add must not have spent an id either: the next id is the same as if it never happened.
        var reference = before
        let next = try? box.add(Draft(subject: "ok"), at: 6)
        let referenceNext = try? reference.add(Draft(subject: "ok"), at: 6)
        #expect(next != nil && next == referenceNext)
    }

    @Test func aTwoHundredCharacterSubjectAndTenThousandCharacterBodyAreAccepted() throws {
        var box = Mailbox()
        let added = try box.add(Draft(subject: text(200), body: text(10_000, "b")), at: 0)
        #expect(added.subject == text(200))
        #expect(added.body == text(10_000, "b"))
        #expect(box.count == 1)
    }

    @Test func theDraftErrorMessageJoinsEveryProblem() {
        var box = Mailbox()
        let error = #expect(throws: MailboxError.self) {
            try box.add(Draft(subject: "", body: text(10_001)), at: 0)
        }
        #expect(error?.message == "Subject can't be empty. Message is too long: at most 10000 characters.")
    }
}

@Suite struct MailboxIdentityTests {
    @Test func idsAreNeverReusedAfterDeletingTheNewest() throws {
        var box = mailbox("A", "B", "C")
        var issued = Set(box.ids)
        for round in 0..<5 {
            let added = try box.add(Draft(subject: "m\(round)"), at: Int64(round))
            #expect(!issued.contains(added.id), "id \(added.id) reused in round \(round)")
            issued.insert(added.id)
            // Delete the newest (highest) id each time, so a "max + 1" scheme would reuse it.
            box.delete([added.id])
        }
        #expect(issued.count == 8)
        #expect(box.subjects == ["A", "B", "C"])
    }

    @Test func idsAreNeverReusedAfterDeletingEverything() throws {
        var box = mailbox("A", "B", "C")
        box.delete(box.ids)
        #expect(box.isEmpty)
        let added = try box.add(Draft(subject: "D"), at: 0)
        #expect(added.id > MessageID(3))
    }

    @Test func aMailboxBuiltFromMessagesIssuesIDsAboveTheHighestOne() throws {
        var box = Mailbox(messages: [
            Message(id: MessageID(7), subject: "seven", createdAt: 0),
            Message(id: MessageID(3), subject: "three", createdAt: 0),
        ])
        let added = try box.add(Draft(subject: "new"), at: 0)
        #expect(added.id > MessageID(7))
    }

    @Test func lookupsFindMessagesByID() {
        let box = mailbox("A", "B", "C")
        #expect(box.message(MessageID(2))?.subject == "B")
        #expect(box.message(MessageID(9)) == nil)
        #expect(box.offset(of: MessageID(3)) == 2)
        #expect(box.offset(of: MessageID(9)) == nil)
        #expect(box.ids == [MessageID(1), MessageID(2), MessageID(3)])
        #expect(box.count == 3)
        #expect(!box.isEmpty)
        #expect(Mailbox().isEmpty)
    }
}

@Suite struct MailboxDeleteTests {
    @Test func deleteReportsAppliedInMailboxOrderAndMissingSorted() {
        var box = mailbox("A", "B", "C", "D")
        let outcome = box.delete([MessageID(4), MessageID(9), MessageID(2), MessageID(5), MessageID(2)])
        #expect(outcome.applied == [MessageID(2), MessageID(4)])
        #expect(outcome.missing == [MessageID(5), MessageID(9)])
        #expect(box.subjects == ["A", "C"])
    }

    @Test func deletingOnlyMissingIDsChangesNothing() {
        var box = mailbox("A", "B")
        box.delete([MessageID(1)])
        let before = box
        let outcome = box.delete([MessageID(1), MessageID(8)])
        #expect(outcome.applied.isEmpty)
        #expect(outcome.missing == [MessageID(1), MessageID(8)])
        #expect(box == before)
    }

    @Test func deletingNothingIsANoOp() {
        var box = mailbox("A", "B")
        let outcome = box.delete([])
        #expect(outcome.applied.isEmpty && outcome.missing.isEmpty)
        #expect(box.subjects == ["A", "B"])
    }

    @Test func removeAtOffsetsUsesTheCurrentOrder() throws {
        var box = mailbox("A", "B", "C", "D")
        try box.remove(atOffsets: [3, 0])
        #expect(box.subjects == ["B", "C"])
    }

    @Test func removeAtAnInvalidOffsetThrowsAnOffsetErrorAndChangesNothing() {
        var box = mailbox("A", "B")
        let before = box
        let error = #expect(throws: MailboxError.self) { try box.remove(atOffsets: [0, 2]) }
        guard case .offset(let offsetError) = error else {
            Issue.record("expected .offset, got \(String(describing: error))")
            return
        }
        #expect(offsetError.offset == 2)
        #expect(error?.message == "Offset 2 is out of range 0...1.")
        #expect(box == before)
    }
}

@Suite struct MailboxMoveTests {
    struct StepExample: Sendable, CustomTestStringConvertible {
        let id: Int64
        let step: MoveStep
        let result: String
        var testDescription: String { "\(id) \(step) gives \(result)" }
    }

    @Test(arguments: [
        StepExample(id: 3, step: .up, result: "A C B D"),
        StepExample(id: 2, step: .up, result: "B A C D"),
        StepExample(id: 1, step: .up, result: "A B C D"),  // top edge: nothing to do
        StepExample(id: 2, step: .down, result: "A C B D"),
        StepExample(id: 3, step: .down, result: "A B D C"),
        StepExample(id: 1, step: .down, result: "B A C D"),
        StepExample(id: 4, step: .down, result: "A B C D"),  // bottom edge: nothing to do
        StepExample(id: 4, step: .up, result: "A B D C"),
    ])
    func moveByOneStep(_ example: StepExample) throws {
        var box = mailbox("A", "B", "C", "D")
        try box.move(MessageID(example.id), by: example.step)
        #expect(box.subjects == letters(example.result))
        #expect(box.ids.sorted() == [1, 2, 3, 4].map { MessageID($0) })
    }

    @Test(arguments: [MoveStep.up, .down])
    func moveByOneStepInASingleRowMailboxChangesNothing(step: MoveStep) throws {
        var box = mailbox("A")
        let before = box
        try box.move(MessageID(1), by: step)
        #expect(box == before)
    }

    @Test(arguments: [MoveStep.up, .down])
    func moveByOneStepOfAnUnknownMessageThrows(step: MoveStep) {
        var box = mailbox("A", "B")
        let before = box
        #expect(throws: MailboxError.unknownMessage(MessageID(9))) { try box.move(MessageID(9), by: step) }
        #expect(box == before)
    }

    @Test func moveStepParsesFromItsFormValue() {
        #expect(MoveStep(rawValue: "up") == .up)
        #expect(MoveStep(rawValue: "down") == .down)
        #expect(MoveStep(rawValue: "sideways") == nil)
    }

    @Test(arguments: OffsetsTests.designExamples)
    func moveIDsToAnOffsetFollowsTheDesignExamples(_ example: MoveExample) throws {
        var box = mailbox(OffsetsTests.original)
        let ids = example.source.map { MessageID(Int64($0 + 1)) }
        try box.move(ids, toOffset: example.destination)
        #expect(box.subjects == letters(example.result))
    }

    @Test func moveIDsFindsThemInTheCurrentOrder() throws {
        var box = mailbox("A", "B", "C", "D", "E")
        try box.move(MessageID(5), by: .up)  // A B C E D
        try box.move(MessageID(5), by: .up)  // A B E C D
        try box.move([MessageID(5), MessageID(1)], toOffset: 5)
        #expect(box.subjects == ["B", "C", "D", "A", "E"])
    }

    @Test func moveIDsWithAnUnknownIDThrowsUnknownMessageAndChangesNothing() {
        var box = mailbox("A", "B", "C")
        let before = box
        #expect(throws: MailboxError.unknownMessage(MessageID(42))) {
            try box.move([MessageID(1), MessageID(42)], toOffset: 3)
        }
        #expect(box == before)
    }

    @Test func moveIDsToAnInvalidDestinationThrowsAnOffsetErrorAndChangesNothing() {
        var box = mailbox("A", "B", "C")
        let before = box
        let error = #expect(throws: MailboxError.self) { try box.move([MessageID(1)], toOffset: 4) }
        guard case .offset(let offsetError) = error else {
            Issue.record("expected .offset, got \(String(describing: error))")
            return
        }
        #expect(offsetError.offset == 4)
        #expect(offsetError.validRange == 0..<4)
        #expect(box == before)
    }

    @Test func moveFromOffsetsOnTheMailboxUsesTheOriginalOrder() throws {
        var box = mailbox("A", "B", "C", "D", "E")
        try box.move(fromOffsets: [1, 3], toOffset: 0)
        #expect(box.subjects == ["B", "D", "A", "C", "E"])
        let error = #expect(throws: MailboxError.self) { try box.move(fromOffsets: [5], toOffset: 0) }
        #expect(error?.message == "Offset 5 is out of range 0...4.")
    }

    @Test func unknownMessageErrorNamesTheID() {
        #expect(MailboxError.unknownMessage(MessageID(17)).message == "There is no message 17.")
    }
}

@Suite struct MailboxFlagTests {
    @Test func setUnreadChangesOnlyTheNamedMessagesAndReportsMissingOnes() {
        var box = mailbox("A", "B", "C")
        #expect(box.unreadCount == 3)
        let outcome = box.setUnread(false, for: [MessageID(3), MessageID(1), MessageID(7)])
        #expect(outcome.applied == [MessageID(1), MessageID(3)])
        #expect(outcome.missing == [MessageID(7)])
        #expect(box.messages.map(\.isUnread) == [false, true, false])
        #expect(box.unreadCount == 1)

        box.setUnread(true, for: [MessageID(1)])
        #expect(box.messages.map(\.isUnread) == [true, true, false])
        #expect(box.messages.map(\.isFlagged) == [false, false, false])
    }

    @Test func setFlaggedChangesOnlyTheNamedMessagesAndReportsMissingOnes() {
        var box = mailbox("A", "B", "C")
        let outcome = box.setFlagged(true, for: [MessageID(2), MessageID(5)])
        #expect(outcome.applied == [MessageID(2)])
        #expect(outcome.missing == [MessageID(5)])
        #expect(box.messages.map(\.isFlagged) == [false, true, false])

        box.setFlagged(true, for: [MessageID(1), MessageID(2)])
        #expect(box.messages.map(\.isFlagged) == [true, true, false])
        box.setFlagged(false, for: [MessageID(2)])
        #expect(box.messages.map(\.isFlagged) == [true, false, false])
        #expect(box.messages.map(\.isUnread) == [true, true, true])
        #expect(box.subjects == ["A", "B", "C"])
    }
}

@Suite struct MailboxEditTests {
    @Test func editReplacesSubjectAndBodyAndKeepsEverythingElse() throws {
        var box = mailbox("A", "B", "C")
        box.setFlagged(true, for: [MessageID(2)])
        box.setUnread(false, for: [MessageID(2)])
        let before = try #require(box.message(MessageID(2)))
        try box.edit(MessageID(2), with: Draft(subject: "  Better  ", body: "New body \n"))
        let after = try #require(box.message(MessageID(2)))
        #expect(after.subject == "Better")
        #expect(after.body == "New body")
        #expect(after.id == before.id)
        #expect(after.author == before.author)
        #expect(after.createdAt == before.createdAt)
        #expect(after.isFlagged && !after.isUnread)
        #expect(box.subjects == ["A", "Better", "C"])
    }

    @Test(arguments: invalidDrafts)
    func editWithAnInvalidDraftThrowsAndChangesNothing(_ example: InvalidDraft) {
        var box = mailbox("A", "B")
        let before = box
        let error = #expect(throws: MailboxError.self) { try box.edit(MessageID(1), with: example.draft) }
        guard case .draft(let draftError) = error else {
            Issue.record("expected .draft, got \(String(describing: error))")
            return
        }
        #expect(draftError.problems == example.problems)
        #expect(box == before)
    }

    @Test func editOfAnUnknownMessageThrowsUnknownMessage() {
        var box = mailbox("A")
        let before = box
        #expect(throws: MailboxError.unknownMessage(MessageID(3))) {
            try box.edit(MessageID(3), with: Draft(subject: "fine"))
        }
        #expect(box == before)
    }
}
