import MailroomCore
import Testing
import TestSupport

// Finding a message by id goes through an index kept beside each mailbox's messages; these
// tests compare every answer with a plain scan of the rows after each of many random commands.

/// What a scan of the rows says about `id`: its mailbox, its offset there and the message.
private func scanned(_ library: Library, _ id: MessageID) -> (MailboxID, Int, Message)? {
    for mailbox in library.mailboxes {
        if let offset = mailbox.messages.firstIndex(where: { $0.id == id }) {
            return (mailbox.id, offset, mailbox.messages[offset])
        }
    }
    return nil
}

/// Every way the library's lookups disagree with a scan, for ids present, gone and never made.
private func lookupProblems(_ library: Library) -> [String] {
    var problems: [String] = []
    let highest = library.nextMessageID
    for raw in Int64(1)...(highest + 1) {
        let id = MessageID(raw)
        let expected = scanned(library, id)
        if library.mailbox(of: id) != expected?.0 {
            problems.append("mailbox(of: \(id)) is \(String(describing: library.mailbox(of: id))), not \(String(describing: expected?.0))")
        }
        if library.message(id) != expected?.2 { problems.append("message(\(id)) differs from the scan") }
        for mailbox in library.mailboxes {
            let offset = mailbox.messages.firstIndex { $0.id == id }
            if mailbox.offset(of: id) != offset {
                problems.append("\(mailbox.id).offset(of: \(id)) is \(String(describing: mailbox.offset(of: id))), not \(String(describing: offset))")
            }
            if mailbox.message(id) != offset.map({ mailbox.messages[$0] }) {
                problems.append("\(mailbox.id).message(\(id)) differs from the scan")
            }
        }
    }
    return problems
}

@Suite struct LookupTests {
    @Test(arguments: [UInt64(1), 42, 20_240_601, 0xBEEF])
    func lookupsAgreeWithAScanAfterEveryLibraryCommand(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var library = sampleLibrary()
        #expect(lookupProblems(library) == [])
        var refused = 0
        for step in 1...400 {
            var next = library
            let description: String
            do {
                description = try ChangesPropertyTests.randomCommand(on: &next, random: &random, clock: Int64(step))
            } catch {
                // The refused copy must still answer right: a command may throw after a change.
                for problem in lookupProblems(next) { Issue.record("step \(step) refused (\(error)): \(problem)") }
                refused += 1
                continue
            }
            for problem in lookupProblems(next) {
                Issue.record("step \(step) (\(description)): \(problem)")
            }
            library = next
        }
        // The walk must really have moved messages around, not only been refused.
        #expect(refused < 200)
        #expect(library.messageCount > 0)
    }

    /// One random command of a stand-alone mailbox, through each of its own methods.
    static func randomMailboxCommand(on mailbox: inout Mailbox, random: inout SeededGenerator, clock: Int64) -> String {
        let ids = mailbox.ids
        let someIDs = random.subset(of: ids) + (random.chance(1, in: 5) ? [MessageID(99_999)] : [])
        switch random.below(8) {
        case 0, 1:
            let added = try? mailbox.add(Draft(subject: "Subject \(clock)"), at: clock)
            return "add \(String(describing: added?.id))"
        case 2:
            let offsets = random.subset(of: Array(ids.indices)) + (random.chance(1, in: 10) ? [ids.count] : [])
            let thrown = (try? mailbox.remove(atOffsets: offsets)) == nil
            return "remove at \(offsets)\(thrown ? " (refused)" : "")"
        case 3:
            let offsets = random.subset(of: Array(ids.indices))
            let destination = random.below(ids.count + 2)
            let thrown = (try? mailbox.move(fromOffsets: offsets, toOffset: destination)) == nil
            return "move \(offsets) to \(destination)\(thrown ? " (refused)" : "")"
        case 4:
            let outcome = mailbox.delete(someIDs)
            return "delete \(someIDs): \(outcome)"
        case 5:
            guard let id = ids.isEmpty ? nil : random.pick(ids) else { return "nothing to step" }
            let step: MoveStep = random.chance(1, in: 2) ? .up : .down
            try? mailbox.move(id, by: step)
            return "move \(id) \(step)"
        case 6:
            let destination = random.below(ids.count + 1)
            let thrown = (try? mailbox.move(someIDs, toOffset: destination)) == nil
            return "move ids \(someIDs) to \(destination)\(thrown ? " (refused)" : "")"
        default:
            let outcome = mailbox.setUnread(random.chance(1, in: 2), for: someIDs)
            return "mark \(someIDs): \(outcome)"
        }
    }

    @Test(arguments: [UInt64(3), 77, 0xC0FFEE])
    func lookupsAgreeWithAScanAfterEveryMailboxCommand(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var box = mailbox((1...12).map { "Row \($0)" })
        for step in 1...500 {
            let description = Self.randomMailboxCommand(on: &box, random: &random, clock: Int64(step))
            let problems = lookupProblems(Library(inbox: box)).filter { $0.hasPrefix("inbox") }
            for problem in problems { Issue.record("step \(step) (\(description)): \(problem)") }
        }
    }

    @Test func aMessageAddedOnTopIsFoundAndTheOthersKeepTheirPlaces() throws {
        var library = Library(inbox: mailbox("A", "B", "C"))
        let added = try library.add(Draft(subject: "New"), to: .inbox, at: 5)
        #expect(library[.inbox]?.offset(of: added.id) == 0)
        #expect(library[.inbox]?.offset(of: MessageID(1)) == 1)
        #expect(library[.inbox]?.offset(of: MessageID(3)) == 3)
        #expect(library.mailbox(of: added.id) == .inbox)
    }

    @Test func aMessageMovedToTrashIsFoundThereAndNoLongerInItsOldMailbox() throws {
        var library = Library(inbox: mailbox("A", "B", "C"))
        try library.move([MessageID(2)], from: .inbox, to: .trash)
        #expect(library.mailbox(of: MessageID(2)) == .trash)
        #expect(library[.inbox]?.offset(of: MessageID(2)) == nil)
        #expect(library[.inbox]?.offset(of: MessageID(1)) == 0)
        #expect(library[.inbox]?.offset(of: MessageID(3)) == 1)
        library.restore([MessageID(2)])
        #expect(library[.inbox]?.offset(of: MessageID(2)) == 1)
        #expect(library[.trash]?.offset(of: MessageID(2)) == nil)
    }

    @Test func emptyingTrashLeavesNothingToFind() throws {
        var library = sampleLibrary()
        try library.move([MessageID(1), MessageID(5)], from: .inbox, to: .trash)
        library.emptyTrash()
        for id in messageIDs(1, 5, 9) {
            #expect(library.mailbox(of: id) == nil)
            #expect(library.message(id) == nil)
        }
    }

    @Test func deletingAMailboxMakesItsMessagesFoundInTrash() throws {
        var library = sampleLibrary()
        try library.deleteMailbox(workMailbox)
        #expect(library.mailbox(of: MessageID(10)) == .trash)
        #expect(library.mailbox(of: MessageID(11)) == .trash)
    }
}

@Suite struct MessageTextTests {
    @Test func messagesWithTheSameWordsAreEqualAndHashAlikeThoughMadeApart() {
        let one = libraryMessage(7)
        var other = libraryMessage(7)
        other.subject = "Changed"
        other.subject = one.subject
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(Set([one, other]).count == 1)
    }

    @Test func changingOneWordChangesOnlyThatWordOfThatCopy() {
        let original = libraryMessage(7)
        var copy = original
        copy.body = "New body"
        #expect(copy.body == "New body")
        #expect(copy.subject == original.subject)
        #expect(copy.author == original.author)
        #expect(original.body == "Body of 7")
        #expect(copy != original)
        copy.body = original.body
        copy.author = "Someone else"
        #expect(copy != original)
    }

    @Test func aLibraryBuiltAgainFromEqualMessagesIsEqual() {
        let library = sampleLibrary()
        let rebuilt = Library(mailboxes: library.mailboxes.map { mailbox in
            Mailbox(id: mailbox.id, name: mailbox.name, messages: mailbox.messages.map { message in
                Message(
                    id: message.id, subject: String(decoding: Array(message.subject.utf8), as: UTF8.self), body: message.body, author: message.author,
                    createdAt: message.createdAt, isUnread: message.isUnread, isFlagged: message.isFlagged, origin: message.origin)
            })
        })
        #expect(rebuilt == library)
    }
}
