import MailroomCore
import Testing

@Suite struct EditModeTests {
    @Test(arguments: [
        (EditMode.inactive, false),
        (EditMode.transient(MessageID(4)), true),
        (EditMode.active, true),
    ])
    func isEditingFollowsTheDesignTable(mode: EditMode, isEditing: Bool) {
        #expect(mode.isEditing == isEditing)
    }

    @Test(arguments: [
        (EditMode.inactive, MessageID?.none),
        (EditMode.transient(MessageID(4)), MessageID(4)),
        (EditMode.active, MessageID?.none),
    ])
    func onlyATransientModeHasAPendingRow(mode: EditMode, pendingRow: MessageID?) {
        #expect(mode.pendingRow == pendingRow)
    }

    @Test func transientModesForDifferentRowsDiffer() {
        #expect(EditMode.transient(MessageID(1)) != .transient(MessageID(2)))
        #expect(EditMode.transient(MessageID(1)) == .transient(MessageID(1)))
        #expect(EditMode.transient(MessageID(1)) != .active)
    }
}
