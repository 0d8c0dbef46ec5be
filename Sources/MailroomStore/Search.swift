import MailroomCore

/// Searches: a mailbox's messages that match a `SearchQuery`. With words, they are read through
/// an FTS5 index newest first (by id), so a page of matches costs what its rows cost; without
/// (only filters such as `is:unread`), they come in the mailbox's own order, by rank.
///
/// A query can have terms for both indexes (`search` for words, `search_cjk` for substrings of
/// scripts written without spaces). One drives: the substring index when it has a wanted term,
/// else the word index. The other's terms are checked for each message the driver yields, by its
/// id (FTS5 seeks a rowid in its doclists instead of reading them whole), so the driver should
/// be the rarer: three characters of Japanese match far fewer messages than a common English
/// word: in a million messages with 1,250 holding スキャン, "スキャン the" timed out with "the"
/// driving, and took about 220 ms the other way round.
extension Reader {
    /// How many matches a page counts before it says "1,000+": a phrase of two common words
    /// costs 5 to 10 ms per thousand matches counted in a million messages, so the count is
    /// kept per state of the mailbox (`Mailroom.search`).
    public static let countLimit = 1_000

    /// One page of the matches of `query` in `box`; keys are what `key(of:)` orders by.
    /// `counted` is what `counted(_:)` said of an earlier page of this search while the mailbox
    /// was as it is now: then the matches are not counted again.
    public func search(
        _ query: SearchQuery, in box: MailboxID, from place: PagePlace, limit: Int, counted known: Int? = nil
    ) throws(StoreError) -> ListSlice {
        let limit = max(limit, 1)
        // Each read asks for one row more than the page: that row says whether there is more
        // beyond the page's far end, without another FTS5 query (opening one costs more than
        // the row). Nothing is newer than a page read from the top.
        var found: [(message: Message, key: Int64)]
        var hasNewer: Bool?
        var hasOlder: Bool?
        switch place {
        case .top:
            (found, hasOlder) = try matches(query, in: box, "", [], descending: true, limit: limit)
            hasNewer = false
        case .below(let key):
            (found, hasOlder) = try matches(query, in: box, "KEY < ?", [.integer(key)], descending: true, limit: limit)
            if found.isEmpty {
                let (oldest, more) = try matches(query, in: box, "", [], descending: false, limit: limit)
                (found, hasNewer, hasOlder) = (oldest.reversed(), more, false)
            }
        case .above(let key):
            let (above, more) = try matches(query, in: box, "KEY > ?", [.integer(key)], descending: false, limit: limit)
            if above.count < limit {
                (found, hasOlder) = try matches(query, in: box, "", [], descending: true, limit: limit)
                hasNewer = false
            } else {
                (found, hasNewer) = (above.reversed(), more)
            }
        }
        if hasNewer == nil, let first = found.first {
            hasNewer = try !matches(query, in: box, "KEY > ?", [.integer(first.key)], descending: false, limit: 1).found.isEmpty
        }
        if hasOlder == nil, let last = found.last {
            hasOlder = try !matches(query, in: box, "KEY < ?", [.integer(last.key)], descending: true, limit: 1).found.isEmpty
        }
        let counted: Int
        if let known {
            counted = known
        } else if case .top = place, hasOlder != true {
            // The whole search is on this page.
            counted = found.count
        } else {
            counted = try count(query, in: box, enteredBy: nil, limit: Self.countLimit + 1)
        }
        var slice = ListSlice(
            rows: found.map(\.message), keys: found.map(\.key), hasNewer: hasNewer ?? false, hasOlder: hasOlder ?? false,
            total: min(counted, Self.countLimit), revision: try revision())
        slice.totalIsAtLeast = counted > Self.countLimit
        return slice
    }

    /// How many matches `slice` (a page of `search`) says there are, as `search` takes it back
    /// in `counted`.
    public static func counted(_ slice: ListSlice) -> Int {
        slice.totalIsAtLeast ? countLimit + 1 : slice.total
    }

    /// The newest match of `query` in `box` with an id above `id` (the top one, for a search of
    /// filters alone), or nil: one indexed step, for `wait`, which asks after every commit.
    public func newestMatch(_ query: SearchQuery, in box: MailboxID, above id: Int64) throws(StoreError) -> MessageID? {
        let (sql, values) = Self.matchSQL(query, in: box, columns: "m.id", extra: "m.id > ?", [.integer(id)])
        let statement = try database.cached(sql + " ORDER BY \(Self.key(of: query)) DESC LIMIT 1")
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? MessageID(try statement.integer(at: 0)) : nil
    }

    /// Whether message `id`, in `box`, matches `query`: a tag rule's test of a new message.
    public func matches(_ query: SearchQuery, id: MessageID, in box: MailboxID) throws(StoreError) -> Bool {
        let (sql, values) = Self.matchSQL(query, in: box, columns: "1", extra: "m.id = ?", [.integer(id.rawValue)])
        return try exists(sql + " LIMIT 1", values)
    }

    /// The ids of the matches of `query` in `box` that were there at `revision`, in the order of its pages:
    /// what "all N that match" selected on a page read at that revision means.
    public func ids(matching query: SearchQuery, in box: MailboxID, enteredBy revision: Int64) throws(StoreError) -> [MessageID] {
        let (sql, values) = Self.matchSQL(query, in: box, columns: "m.id", extra: "m.entered <= ?", [.integer(revision)])
        let statement = try database.cached(sql + " ORDER BY \(Self.key(of: query)) DESC")
        try statement.bind(values)
        defer { statement.reset() }
        var ids: [MessageID] = []
        while try statement.step() { ids.append(MessageID(try statement.integer(at: 0))) }
        return ids
    }

    /// How many matches of `query` are in `box` (that were there at `revision`, when given),
    /// counting at most `limit`.
    public func count(_ query: SearchQuery, in box: MailboxID, enteredBy revision: Int64?, limit: Int = .max) throws(StoreError) -> Int {
        let (sql, values) = revision.map { Self.matchSQL(query, in: box, columns: "1", extra: "m.entered <= ?", [.integer($0)]) }
            ?? Self.matchSQL(query, in: box, columns: "1", extra: "", [])
        return try count("SELECT count(*) FROM (\(sql) LIMIT ?)", values + [.integer(Int64(min(limit, Int(Int64.max))))])
    }

    /// Up to `limit` matches in the order asked for, and whether there are more beyond them.
    private func matches(
        _ query: SearchQuery, in box: MailboxID, _ extra: String, _ extraValues: [SQLValue], descending: Bool, limit: Int
    ) throws(StoreError) -> (found: [(message: Message, key: Int64)], more: Bool) {
        let (sql, values) = Self.matchSQL(query, in: box, columns: Self.rowColumns, extra: extra, extraValues, withHeaders: true)
        let statement = try database.cached(sql + " ORDER BY \(Self.key(of: query)) \(descending ? "DESC" : "ASC") LIMIT ?")
        try statement.bind(values + [.integer(limit + 1)])
        defer { statement.reset() }
        var found: [(message: Message, key: Int64)] = []
        while try statement.step() {
            guard found.count < limit else { return (found, true) }
            let row = try Self.row(statement, body: nil)
            found.append((row.message, query.hasWords ? row.message.id.rawValue : row.rank))
        }
        return (found, false)
    }

    /// The column that orders matches: the index's own rowid when words drive the search (so
    /// FTS5 reads its matches newest first and stops at the page's end), else the rank.
    static func key(of query: SearchQuery) -> String {
        query.hasWords ? "s.rowid" : "m.rank"
    }

    /// The SELECT for `query`'s matches in `box`, with `extra` (and its values) as one more
    /// condition, in which `KEY` stands for the ordering column; `withHeaders` joins `headers h`.
    static func matchSQL(
        _ query: SearchQuery, in box: MailboxID, columns: String, extra: String, _ extraValues: [SQLValue],
        withHeaders: Bool = false
    ) -> (String, [SQLValue]) {
        var conditions = ["m.mailbox = ?"]
        var values: [SQLValue] = [.integer(box.rawValue)]
        var from = "messages m"
        var drivingValues: [SQLValue] = []
        // CROSS JOIN keeps the index outside: FTS5 reads its matches once, newest first, and
        // each is looked up by id. The other way round, SQLite would run the MATCH once for
        // every message of the mailbox.
        let compiled = FTS5Query(query)
        let indexes = [("search_cjk", compiled.substrings), ("search", compiled.words)]
        let driver = indexes.first { $0.1.expression != nil }
        for (table, terms) in indexes {
            if let driver, driver.0 == table, let expression = terms.expression {
                from = "\(table) s CROSS JOIN messages m ON m.id = s.rowid"
                conditions.insert("s.\(table) MATCH ?", at: 0)
                drivingValues.append(.text(expression))
                continue
            }
            for (expression, test) in [(terms.wanted.isEmpty ? nil : terms.wanted.joined(separator: " AND "), "EXISTS"),
                                       (terms.anyUnwanted, "NOT EXISTS")] {
                guard let expression else { continue }
                conditions.append("\(test) (SELECT 1 FROM \(table) o WHERE o.\(table) MATCH ? AND o.rowid = m.id)")
                values.append(.text(expression))
            }
        }
        values = drivingValues + values
        // A Cc wanted or left out, compared without ASCII case (the index term found its words
        // in To, Cc or the envelope alike).
        for filter in query.cc {
            let test = "instr(lower(x.cc_header), lower(?)) > 0"
            conditions.append(filter.isExcluded
                ? "NOT EXISTS (SELECT 1 FROM mail x WHERE x.id = m.id AND \(test))"
                : "EXISTS (SELECT 1 FROM mail x WHERE x.id = m.id AND \(test))")
            values.append(.text(filter.text))
        }
        if let unread = query.isUnread {
            conditions.append("m.unread = ?")
            values.append(.boolean(unread))
        }
        if let flagged = query.isFlagged {
            conditions.append("m.flagged = ?")
            values.append(.boolean(flagged))
        }
        if let before = query.before {
            conditions.append("m.created_at < ?")
            values.append(.integer(before))
        }
        if let after = query.after {
            conditions.append("m.created_at >= ?")
            values.append(.integer(after))
        }
        if query.hasAttachment {
            // Found by words, each match is one look-up; alone, the partial index lists the
            // (usually few) mail that has attachments, instead of every message being tried.
            conditions.append(query.hasWords
                ? "EXISTS (SELECT 1 FROM mail x WHERE x.id = m.id AND x.listed_attachments > 0)"
                : "m.id IN (SELECT id FROM mail WHERE listed_attachments > 0)")
        }
        for filter in query.tags {
            let tagged = "SELECT mt.message FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE t.name = ?"
            // Alone, the tag's own links are the few rows to try; with words, each match is one look-up.
            conditions.append(filter.isExcluded ? "NOT EXISTS (\(tagged) AND mt.message = m.id)"
                : query.hasWords ? "EXISTS (\(tagged) AND mt.message = m.id)" : "m.id IN (\(tagged))")
            values.append(.text(filter.name))
        }
        if query.hasHTML {
            conditions.append("EXISTS (SELECT 1 FROM mail x WHERE x.id = m.id AND x.html IS NOT NULL)")
        }
        if !extra.isEmpty {
            conditions.append(extra.replacingKey(with: key(of: query)))
            values += extraValues
        }
        if withHeaders { from += " CROSS JOIN headers h ON h.id = m.id" }
        return ("SELECT \(columns) FROM \(from) WHERE " + conditions.joined(separator: " AND "), values)
    }
}

extension String {
    fileprivate func replacingKey(with column: String) -> String {
        split(separator: "KEY", omittingEmptySubsequences: false).joined(separator: column)
    }
}
