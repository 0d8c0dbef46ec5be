/// SwiftUI's EditMode, carried by each page's own URL rather than by shared state.
public enum EditMode: Hashable, Sendable {
    /// Normal browsing: rows are links.
    case inactive
    /// One row's delete confirmation is open: the web form of a swipe to delete.
    case transient(MessageID)
    /// Editing: a checkbox on every row and the toolbar shown.
    case active

    public var isEditing: Bool {
        switch self {
        case .inactive: false
        case .transient, .active: true
        }
    }

    /// The row whose delete confirmation is open, if any.
    public var pendingRow: MessageID? {
        if case .transient(let id) = self { id } else { nil }
    }
}
