/// One list screen's edit state: its mode, its selection, and which page of the list it shows.
///
/// Every part of a rendered list (rows, toolbar, Edit button, title, paging links) reads this
/// one value, and every change of mode keeps the page: Done returns to the same rows.
public struct ListState: Hashable, Sendable {
    public private(set) var mode: EditMode
    /// Meaningful only while active; empty otherwise.
    public private(set) var selection: Set<MessageID>
    /// Where the page starts in the list (keyset, see `PagePlace`).
    public var place: PagePlace = .top
    /// The number of the first row shown (1 on the first page), for "51–100 of 1,234". Carried
    /// beside the place rather than counted, so a page deep in a big list costs no count.
    public var start: Int = 1
    /// Set while "all N" is selected: the revision the counted list was read at. Only what was
    /// in the list then is acted on.
    public private(set) var allAsOf: Int64?
    /// The search that narrows the list, as typed (empty: the whole mailbox in its own order).
    public var search: String = ""

    /// Whether the list is a search's results rather than the mailbox in its own order.
    public var isSearch: Bool { !search.isEmpty }

    public init(mode: EditMode = .inactive, selection: some Sequence<MessageID> = [], allAsOf: Int64? = nil) {
        self.mode = mode
        self.selection = mode == .active ? Set(selection) : []
        self.allAsOf = mode == .active ? allAsOf : nil
    }

    public static let inactive = ListState()

    /// The same page in another mode and selection.
    private func with(_ mode: EditMode, _ selection: some Sequence<MessageID> = [], allAsOf: Int64? = nil) -> ListState {
        var next = ListState(mode: mode, selection: selection, allAsOf: allAsOf)
        next.place = place
        next.start = start
        next.search = search
        return next
    }

    /// Makes the state fit the list as it is now: ids for which `isPresent` is false are dropped,
    /// a confirmation for a row that is gone closes, and an empty list cannot be edited.
    public func reconciled(isEmpty: Bool, isPresent: (MessageID) -> Bool) -> ListState {
        if isEmpty { return with(.inactive) }
        switch mode {
        case .inactive:
            return self
        case .transient(let id):
            return isPresent(id) ? self : with(.inactive)
        case .active:
            return with(.active, selection.filter(isPresent), allAsOf: allAsOf)
        }
    }

    /// Makes the state fit the mailbox as it is now (see `reconciled(isEmpty:isPresent:)`).
    public func reconciled(with mailbox: Mailbox) -> ListState {
        // Looked up by id (the mailbox keeps an index), not by a set of every id it holds.
        reconciled(isEmpty: mailbox.isEmpty) { mailbox.offset(of: $0) != nil }
    }

    /// The Edit button: enters edit mode, unless there is nothing to edit.
    public func editing(isEmpty: Bool) -> ListState {
        isEmpty ? with(.inactive) : with(.active)
    }

    public func editing(_ mailbox: Mailbox) -> ListState { editing(isEmpty: mailbox.isEmpty) }

    /// The Done button: always back to browsing, with any confirmation closed and nothing
    /// selected, on the same page.
    public var done: ListState { with(.inactive) }

    /// Opens one row's delete confirmation, closing any other.
    public func confirmingDelete(of id: MessageID) -> ListState {
        with(.transient(id))
    }

    public func selecting(_ ids: some Sequence<MessageID>) -> ListState {
        with(.active, ids)
    }

    /// "Select all N": the page's rows ticked, and the whole list as of `revision` meant.
    public func selectingAll(_ ids: some Sequence<MessageID>, asOf revision: Int64) -> ListState {
        with(.active, ids, allAsOf: revision)
    }

    public var deselectingAll: ListState { with(.active) }

    public func toggling(_ id: MessageID) -> ListState {
        var selection = selection
        if selection.remove(id) == nil { selection.insert(id) }
        return with(.active, selection)
    }

    /// Whether every one of `ids` (a page's rows) is ticked.
    public func allSelected(of ids: some Collection<MessageID>) -> Bool {
        !ids.isEmpty && ids.allSatisfy(selection.contains)
    }

    /// The label that Select All / Deselect All should show for `mailbox`.
    public func allSelected(in mailbox: Mailbox) -> Bool {
        allSelected(of: mailbox.ids)
    }

    /// The same mode and selection on another page of the list.
    public func moved(to place: PagePlace, start: Int) -> ListState {
        var next = with(mode, selection, allAsOf: allAsOf)
        next.place = place
        next.start = max(start, 1)
        return next
    }
}
