/// Where a page of a list starts, by the key of a row shown on the neighbouring page (keyset
/// paging: never an offset, so a page deep in a big list costs what the first does).
public enum PagePlace: Hashable, Sendable {
    /// The first page.
    case top
    /// The rows just below (older than) the row with this key.
    case below(Int64)
    /// The rows just above (newer than) the row with this key.
    case above(Int64)
}

/// One page of a list, as the store found it.
public struct ListSlice: Hashable, Sendable {
    /// The rows shown, top first; a row's body is only its preview.
    public var rows: [Message]
    /// Each row's key, in the same order: its rank in a mailbox's own order, or its id in a search.
    public var keys: [Int64]
    public var hasNewer: Bool
    public var hasOlder: Bool
    /// How many rows the whole list has (at least, when `totalIsAtLeast`).
    public var total: Int
    /// True when counting stopped early: a search with more matches than is worth counting for
    /// every page reads "of 1,000+".
    public var totalIsAtLeast = false
    /// The store's revision when the page was read: what "all N" is taken as of.
    public var revision: Int64

    public init(rows: [Message], keys: [Int64], hasNewer: Bool, hasOlder: Bool, total: Int, revision: Int64) {
        self.rows = rows
        self.keys = keys
        self.hasNewer = hasNewer
        self.hasOlder = hasOlder
        self.total = total
        self.revision = revision
    }
}
