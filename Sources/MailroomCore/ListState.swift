/// One list screen's edit state: its mode and, while active, its selection.
///
/// Every part of a rendered list (rows, toolbar, Edit button, title) reads this one value.
public struct ListState: Hashable, Sendable {
    public private(set) var mode: EditMode
    /// Meaningful only while active; empty otherwise.
    public private(set) var selection: Set<MessageID>

    public init(mode: EditMode = .inactive, selection: some Sequence<MessageID> = []) {
        self.mode = mode
        self.selection = mode == .active ? Set(selection) : []
    }

    public static let inactive = ListState()

    /// Makes the state fit the mailbox as it is now: unknown ids are dropped, a confirmation
    /// for a row that is gone closes, and an empty mailbox cannot be edited.
    public func reconciled(with mailbox: Mailbox) -> ListState {
        if mailbox.isEmpty { return .inactive }
        // Looked up by id (the mailbox keeps an index), not by a set of every id it holds.
        switch mode {
        case .inactive:
            return self
        case .transient(let id):
            return mailbox.offset(of: id) != nil ? self : .inactive
        case .active:
            return ListState(mode: .active, selection: selection.filter { mailbox.offset(of: $0) != nil })
        }
    }

    /// The Edit button: enters edit mode, unless there is nothing to edit.
    public func editing(_ mailbox: Mailbox) -> ListState {
        mailbox.isEmpty ? .inactive : ListState(mode: .active)
    }

    /// The Done button: always back to browsing, with any confirmation closed and nothing selected.
    public var done: ListState { .inactive }

    /// Opens one row's delete confirmation, closing any other.
    public func confirmingDelete(of id: MessageID) -> ListState {
        ListState(mode: .transient(id))
    }

    public func selecting(_ ids: some Sequence<MessageID>) -> ListState {
        ListState(mode: .active, selection: ids)
    }

    public var deselectingAll: ListState { ListState(mode: .active) }

    public func toggling(_ id: MessageID) -> ListState {
        var selection = selection
        if selection.remove(id) == nil { selection.insert(id) }
        return ListState(mode: .active, selection: selection)
    }

    /// The label that Select All / Deselect All should show for `mailbox`.
    public func allSelected(in mailbox: Mailbox) -> Bool {
        !mailbox.isEmpty && mailbox.ids.allSatisfy(selection.contains)
    }
}
