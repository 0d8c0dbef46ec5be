/// The full-text indexes kept merged while the server is quiet.
///
/// FTS5 writes each commit's new words as a small segment and merges segments four at a time as
/// mail arrives (its `automerge`), so a large index holds a score of segments over many levels,
/// and every search opens a cursor in each of them: at a million messages, a search's queries
/// cost two to four times what they cost over a merged index. Merging everything into one
/// segment after each burst of mail would write the whole index again every time; instead, in
/// quiet moments, any level holding two segments or more is merged into one (FTS5's `merge`
/// command with `usermerge` 2), a few pages at a time. Levels grow by size, so the big ones are
/// rarely touched again: the index settles at a handful of segments.
extension Store {
    /// How many leaf pages one step of merging writes at most: about 10 to 20 ms of work.
    public static let mergePages = 64

    /// One step of merging in both full-text indexes, in one transaction that makes no revision
    /// (the indexes say the same before and after). Whether there was anything to merge.
    @discardableResult
    public func mergeSearchIndexes(pages: Int = Store.mergePages) throws(StoreError) -> Bool {
        var merged = false
        try writeDerived { transaction throws(StoreError) in
            for index in ["search", "search_cjk"] {
                if !indexesMergeInPairs.load(ordering: .relaxed) {
                    try transaction.run("INSERT INTO \(index) (\(index), rank) VALUES ('usermerge', 2)", [])
                }
                let before = transaction.database.totalChanges
                try transaction.run("INSERT INTO \(index) (\(index), rank) VALUES ('merge', ?)", [.integer(Int64(pages))])
                // FTS5 says a step found nothing to do by changing (next to) nothing.
                if transaction.database.totalChanges - before >= 2 { merged = true }
            }
        }
        indexesMergeInPairs.store(true, ordering: .relaxed)
        return merged
    }
}
