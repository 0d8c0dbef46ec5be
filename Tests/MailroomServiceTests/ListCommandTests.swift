import MailroomCore
import MailroomService
import MailroomStore
import Testing

/// List commands run through the group commit, without any page or form.
@Suite struct ListCommandTests {
    @Test func flaggingTheTicksFlagsExactlyThemAndSaysHowMany() throws {
        let service = try makeService(inbox: ["One", "Two", "Three"])
        let (_, notice) = try service.perform { transaction in
            try ListCommand.flag.apply(
                to: transaction, in: .inbox, state: ListState(mode: .active, selection: [MessageID(1), MessageID(3)]),
                pageSize: 50)
        }
        #expect(notice == Notice(.flagged, count: 2))
        let flagged = service.library[.inbox]?.messages.filter(\.isFlagged).map(\.subject)
        #expect(flagged == ["One", "Three"])
    }

    @Test func deletingMovesToTrashWithUndo() throws {
        let service = try makeService(inbox: ["One", "Two"])
        let (_, notice) = try service.perform { transaction in
            try ListCommand.delete(MessageID(2)).apply(to: transaction, in: .inbox, state: ListState(), pageSize: 50)
        }
        #expect(notice?.kind == .deleted)
        #expect(notice?.undo == [MessageID(2)])
        #expect(service.subjects(in: .inbox) == ["One"])
        #expect(service.subjects(in: .trash) == ["Two"])
    }

    @Test func aMoveTheStoreRefusesIsARefusalAndChangesNothing() throws {
        let service = try makeService(inbox: ["One", "Two"])
        do {
            _ = try service.perform { transaction in
                try ListCommand.move([MessageID(99)], toOffset: 0).apply(to: transaction, in: .inbox, state: ListState(), pageSize: 50)
            }
            Issue.record("the move was run")
        } catch {
            guard case .refused? = error as? ServiceError else { Issue.record("expected a refusal, got \(error)"); return }
        }
        #expect(service.subjects(in: .inbox) == ["One", "Two"])
    }

    @Test func aSearchThatCannotRunSelectsNothing() throws {
        let service = try makeService(inbox: ["One"])
        var state = ListState(mode: .active, allAsOf: service.store.revision)
        // A search the grammar refuses (no day is both before and after), so nothing can match.
        state.search = "after:2026-02-01 before:2026-01-01"
        #expect(ListCommand.search(of: state).1 != nil)
        #expect(throws: ServiceError.self) {
            try service.perform { transaction in
                try ListCommand.flag.apply(to: transaction, in: .inbox, state: state, pageSize: 50)
            }
        }
        #expect(service.library[.inbox]?.messages.first?.isFlagged == false)
    }
}
