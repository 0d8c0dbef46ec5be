import MailroomCore
import MailroomStore

extension Mailroom {
    /// One page of the matches of `query` in `box`, read by `reader`, whose snapshot began after
    /// `revision` was loaded from `revision(of:)`.
    ///
    /// The page's rows are searched every time. How many match in all is counted once per
    /// revision of the mailbox, for every page of the search, in either mode, on every door:
    /// counting is most of a search's cost (a phrase of two common words reads tens of thousands
    /// of candidates to count its first thousand matches) and its answer is the same until the
    /// mailbox changes.
    public func search(
        _ query: SearchQuery, in box: MailboxID, from place: PagePlace, limit: Int, reader: Reader, revision: Int64
    ) throws(StoreError) -> ListSlice {
        let known = searchCounts.value(query, in: box, revision: revision)
        let slice = try reader.search(query, in: box, from: place, limit: limit, counted: known)
        if known == nil {
            searchCounts.store(Reader.counted(slice), for: query, in: box, revision: revision)
        }
        return slice
    }

    /// Searches whose count was already known, for tests and measurements.
    public var searchCountsKept: Int { searchCounts.hits.load(ordering: .relaxed) }
}
