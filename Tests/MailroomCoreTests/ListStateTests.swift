import MailroomCore
import Testing

private let one = MessageID(1)
private let two = MessageID(2)
private let three = MessageID(3)
private let gone = MessageID(99)

@Suite struct ListStateTests {
    @Test func theDefaultStateIsInactiveWithNothingSelected() {
        let state = ListState()
        #expect(state.mode == .inactive)
        #expect(state.selection.isEmpty)
        #expect(state == .inactive)
    }

    @Test(arguments: [EditMode.inactive, .transient(MessageID(2))])
    func selectionIsDroppedWhenNotActive(mode: EditMode) {
        let state = ListState(mode: mode, selection: [one, two])
        #expect(state.mode == mode)
        #expect(state.selection.isEmpty)
    }

    @Test func selectionIsKeptWhileActive() {
        let state = ListState(mode: .active, selection: [one, two, two])
        #expect(state.mode == .active)
        #expect(state.selection == [one, two])
    }

    // MARK: reconciled(with:)

    @Test func reconcilingDropsIDsThatNoLongerExist() {
        var box = mailbox("A", "B", "C")
        box.delete([two])
        let state = ListState(mode: .active, selection: [one, two, gone]).reconciled(with: box)
        #expect(state.mode == .active)
        #expect(state.selection == [one])
    }

    @Test func reconcilingKeepsAnActiveStateWithAllItsIDs() {
        let box = mailbox("A", "B", "C")
        let state = ListState(mode: .active, selection: [one, three])
        #expect(state.reconciled(with: box) == state)
    }

    @Test func reconcilingKeepsActiveEvenWhenEveryTickedRowIsGone() {
        let box = mailbox("A", "B")
        let state = ListState(mode: .active, selection: [gone]).reconciled(with: box)
        #expect(state.mode == .active)
        #expect(state.selection.isEmpty)
    }

    @Test func reconcilingClosesTheConfirmationOfARowThatIsGone() {
        var box = mailbox("A", "B")
        box.delete([two])
        let state = ListState(mode: .transient(two)).reconciled(with: box)
        #expect(state == .inactive)
    }

    @Test func reconcilingKeepsTheConfirmationOfARowThatStillExists() {
        let box = mailbox("A", "B")
        let state = ListState(mode: .transient(two)).reconciled(with: box)
        #expect(state.mode == .transient(two))
    }

    @Test(arguments: [
        ListState(mode: .active, selection: [MessageID(1)]),
        ListState(mode: .active),
        ListState(mode: .transient(MessageID(1))),
        ListState(mode: .inactive),
    ])
    func reconcilingWithAnEmptyMailboxIsInactive(state: ListState) {
        var box = mailbox("A")
        box.delete([one])
        #expect(state.reconciled(with: box) == .inactive)
        #expect(state.reconciled(with: Mailbox()) == .inactive)
    }

    @Test func reconcilingAnInactiveStateLeavesItInactive() {
        let box = mailbox("A", "B")
        #expect(ListState.inactive.reconciled(with: box) == .inactive)
    }

    @Test func dataChangesDoNotResetTheMode() throws {
        var box = mailbox("A", "B", "C")
        let state = ListState(mode: .active, selection: [one, three])
        try box.add(Draft(subject: "from another browser"), at: 0)
        try box.move(three, by: .up)
        box.delete([two])
        let after = state.reconciled(with: box)
        #expect(after.mode == .active)
        #expect(after.selection == [one, three])
    }

    // MARK: Edit and Done

    @Test func editingAMailboxWithRowsIsActiveWithNothingSelected() {
        let state = ListState.inactive.editing(mailbox("A"))
        #expect(state.mode == .active)
        #expect(state.selection.isEmpty)
    }

    @Test(arguments: [ListState.inactive, ListState(mode: .transient(MessageID(1)))])
    func editingAnEmptyMailboxStaysInactive(state: ListState) {
        let edited = state.editing(Mailbox())
        #expect(edited == .inactive)
        #expect(!edited.mode.isEditing)
    }

    @Test(arguments: [
        ListState.inactive,
        ListState(mode: .active),
        ListState(mode: .active, selection: [MessageID(1), MessageID(2)]),
        ListState(mode: .transient(MessageID(2))),
    ])
    func doneClearsEverything(state: ListState) {
        let done = state.done
        #expect(done.mode == .inactive)
        #expect(done.selection.isEmpty)
        #expect(done.mode.pendingRow == nil)
    }

    // MARK: delete confirmation

    @Test func confirmingDeleteOpensThatRowOnly() {
        let state = ListState.inactive.confirmingDelete(of: two)
        #expect(state.mode == .transient(two))
        #expect(state.mode.pendingRow == two)
        #expect(state.mode.isEditing)
        #expect(state.selection.isEmpty)
    }

    @Test func confirmingDeleteReplacesAnotherPendingRow() {
        let state = ListState(mode: .transient(one)).confirmingDelete(of: three)
        #expect(state.mode == .transient(three))
        #expect(state.mode.pendingRow == three)
    }

    @Test func confirmingDeleteFromActiveClearsTheSelection() {
        let state = ListState(mode: .active, selection: [one, two]).confirmingDelete(of: three)
        #expect(state.mode == .transient(three))
        #expect(state.selection.isEmpty)
    }

    // MARK: selecting

    @Test func togglingAddsThenRemovesAnID() {
        let start = ListState(mode: .active, selection: [one])
        let added = start.toggling(two)
        #expect(added.selection == [one, two])
        #expect(added.mode == .active)
        let removed = added.toggling(one)
        #expect(removed.selection == [two])
        #expect(removed.toggling(two).selection.isEmpty)
        #expect(removed.toggling(two).mode == .active)
    }

    @Test func togglingTwiceRestoresTheSelection() {
        let start = ListState(mode: .active, selection: [one, three])
        for id in [one, two, three, gone] {
            #expect(start.toggling(id).toggling(id) == start)
            #expect(start.toggling(id) != start)
        }
    }

    @Test func selectingReplacesTheSelectionAndDeselectingAllEmptiesIt() {
        let start = ListState(mode: .active, selection: [one])
        let selected = start.selecting([two, three])
        #expect(selected.mode == .active)
        #expect(selected.selection == [two, three])
        let cleared = selected.deselectingAll
        #expect(cleared.mode == .active)
        #expect(cleared.selection.isEmpty)
    }

    // MARK: allSelected

    @Test func allSelectedOnlyWhenEveryRowIsTicked() {
        let box = mailbox("A", "B", "C")
        #expect(!ListState(mode: .active).allSelected(in: box))
        #expect(!ListState(mode: .active, selection: [one, two]).allSelected(in: box))
        #expect(!ListState(mode: .active, selection: [one, two, gone]).allSelected(in: box))
        #expect(ListState(mode: .active, selection: [one, two, three]).allSelected(in: box))
        #expect(ListState(mode: .active, selection: [one, two, three, gone]).allSelected(in: box))
        #expect(ListState.inactive.selecting(box.ids).allSelected(in: box))
        #expect(!ListState.inactive.selecting(box.ids).deselectingAll.allSelected(in: box))
    }

    @Test func allSelectedIsFalseForAnEmptyMailbox() {
        #expect(!ListState(mode: .active).allSelected(in: Mailbox()))
        #expect(!ListState(mode: .active, selection: [one]).allSelected(in: Mailbox()))
    }

    @Test func allSelectedIsFalseWhenNotActive() {
        let box = mailbox("A")
        #expect(!ListState(mode: .inactive, selection: [one]).allSelected(in: box))
        #expect(!ListState(mode: .transient(one), selection: [one]).allSelected(in: box))
    }
}
