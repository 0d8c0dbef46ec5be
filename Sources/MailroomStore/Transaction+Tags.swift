import MailroomCore

/// Tags on messages: links made and dropped in `message_tags`; the triggers of schema 11 keep
/// every count. Names given here are valid tag names (`Tag.cleaned`); another spelling of a
/// known name means that tag.
extension Transaction {
    /// Gives each of `ids` in `box` every tag of `names`; ids not in `box` are missing.
    @discardableResult
    public func addTags(_ names: [String], to ids: some Sequence<MessageID>, in box: MailboxID) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: box)
        try addTags(names, toMessages: outcome.applied)
        return outcome
    }

    /// Takes every tag of `names` from each of `ids` in `box`; ids not in `box` are missing.
    @discardableResult
    public func removeTags(_ names: [String], from ids: some Sequence<MessageID>, in box: MailboxID) throws(StoreError) -> BulkOutcome {
        let outcome = try locate(ids, in: box)
        for tag in try knownTagIDs(names) {
            for id in outcome.applied {
                try run("DELETE FROM message_tags WHERE tag = ? AND message = ?", [.integer(tag), .integer(id.rawValue)])
            }
        }
        return outcome
    }

    /// Gives messages `ids`, wherever they are, the tags `names` (intake, rules, scripts).
    public func addTags(_ names: [String], toMessages ids: some Sequence<MessageID>) throws(StoreError) {
        guard !names.isEmpty else { return }
        let ids = Array(ids)
        guard !ids.isEmpty else { return }
        for tag in try tagIDs(names) {
            for id in ids {
                try run("INSERT INTO message_tags (tag, message) SELECT ?, id FROM messages WHERE id = ? ON CONFLICT DO NOTHING",
                        [.integer(tag), .integer(id.rawValue)])
            }
        }
    }

    /// Makes `names` the whole set of tags of each of `ids`, wherever they are: how many were
    /// found (Mailpit's `PUT /api/v1/tags`).
    @discardableResult
    public func setTags(_ names: [String], of ids: some Sequence<MessageID>) throws(StoreError) -> Int {
        let wanted = try tagIDs(names)
        var found = 0
        for id in ids {
            guard try exists("SELECT 1 FROM messages WHERE id = ?", [.integer(id.rawValue)]) else { continue }
            found += 1
            let kept = Set(try integers("SELECT tag FROM message_tags WHERE message = ?", [.integer(id.rawValue)]))
            for tag in kept.subtracting(wanted) {
                try run("DELETE FROM message_tags WHERE tag = ? AND message = ?", [.integer(tag), .integer(id.rawValue)])
            }
            for tag in wanted where !kept.contains(tag) {
                try run("INSERT INTO message_tags (tag, message) VALUES (?, ?)", [.integer(tag), .integer(id.rawValue)])
            }
        }
        return found
    }

    /// Gives every chosen message the tags `names`; returns how many were chosen.
    @discardableResult
    public func addTags(_ names: [String], to everything: Everything) throws(StoreError) -> Int {
        let chosen = try choose(everything)
        for tag in try tagIDs(names) {
            try run("INSERT INTO message_tags (tag, message) SELECT ?, id FROM temp.chosen WHERE true ON CONFLICT DO NOTHING",
                    [.integer(tag)])
        }
        return chosen
    }

    /// Takes the tags `names` from every chosen message; returns how many were chosen.
    @discardableResult
    public func removeTags(_ names: [String], from everything: Everything) throws(StoreError) -> Int {
        let chosen = try choose(everything)
        for tag in try knownTagIDs(names) {
            try run("DELETE FROM message_tags WHERE tag = ? AND message IN (SELECT id FROM temp.chosen)", [.integer(tag)])
        }
        return chosen
    }

    /// Renames tag `old` to `new` on every message that has it. A new name that is another
    /// tag's is refused (two tags would become one); another spelling of the same is a rename.
    public func renameTag(_ old: String, to new: String) throws(StoreError) {
        guard let tag = try knownTagIDs([old]).first else { throw .refused(.invalidName("There is no tag “\(old)”.")) }
        if let other = try knownTagIDs([new]).first, other != tag {
            throw .refused(.invalidName("There is already a tag “\(new)”."))
        }
        try run("UPDATE tags SET name = ? WHERE id = ?", [.text(new), .integer(tag)])
    }

    /// Takes tag `name` off every message (the messages stay); false when there is no such tag.
    public func deleteTag(_ name: String) throws(StoreError) -> Bool {
        guard let tag = try knownTagIDs([name]).first else { return false }
        try run("DELETE FROM message_tags WHERE tag = ?", [.integer(tag)])
        return true
    }

    /// The ids of tags `names`, each made when missing.
    private func tagIDs(_ names: [String]) throws(StoreError) -> [Int64] {
        var ids: [Int64] = []
        for name in Tag.unique(names) {
            try run("INSERT INTO tags (name) VALUES (?) ON CONFLICT DO NOTHING", [.text(name)])
            ids += try integers("SELECT id FROM tags WHERE name = ?", [.text(name)])
        }
        return ids
    }
}

extension Reader {
    /// The ids of those of tags `names` that exist.
    func knownTagIDs(_ names: [String]) throws(StoreError) -> [Int64] {
        var ids: [Int64] = []
        for name in Tag.unique(names) {
            ids += try integers("SELECT id FROM tags WHERE name = ?", [.text(name)])
        }
        return ids
    }

    /// The tags messages in `box` have, with how many have each (unread too), by name.
    public func tags(in box: MailboxID) throws(StoreError) -> [TagSummary] {
        try tagSummaries("""
            SELECT t.name, c.total, c.unread FROM tag_counts c JOIN tags t ON t.id = c.tag
            WHERE c.mailbox = ? AND c.total > 0 ORDER BY t.name
            """, [.integer(box.rawValue)])
    }

    /// Every tag a message outside Trash has, with how many have it there, by name.
    public func tags() throws(StoreError) -> [TagSummary] {
        try tagSummaries("""
            SELECT t.name, sum(c.total), sum(c.unread) FROM tag_counts c JOIN tags t ON t.id = c.tag
            WHERE c.mailbox != ? AND c.total > 0 GROUP BY t.id ORDER BY t.name
            """, [.integer(MailboxID.trash.rawValue)])
    }

    /// What the integrity check says of tags: counts that do not agree with the links, links
    /// to messages or tags that are gone, tags with no message.
    func tagProblems() throws(StoreError) -> [String] {
        let statement = try database.prepare("""
            SELECT 'the counts of tag ' || coalesce((SELECT name FROM tags WHERE id = tag), tag) || ' in mailbox ' || mailbox || ' are wrong'
            FROM (SELECT mt.tag AS tag, m.mailbox AS mailbox, 1 AS n, m.unread AS u
                  FROM message_tags mt JOIN messages m ON m.id = mt.message
                  UNION ALL SELECT tag, mailbox, -total, -unread FROM tag_counts)
            GROUP BY tag, mailbox HAVING sum(n) != 0 OR sum(u) != 0
            UNION ALL SELECT 'tag ' || mt.tag || ' is on message ' || mt.message || ', which is gone' FROM message_tags mt
                WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = mt.message)
            UNION ALL SELECT 'tag ' || t.name || ' is on no message' FROM tags t
                WHERE NOT EXISTS (SELECT 1 FROM message_tags mt WHERE mt.tag = t.id)
            """)
        var problems: [String] = []
        while try statement.step() { problems.append(try statement.text(at: 0)) }
        return problems
    }

    /// The tag called `name` in any case, as it is spelled, if there is one.
    public func tag(named name: String) throws(StoreError) -> String? {
        let statement = try database.cached("SELECT name FROM tags WHERE name = ?")
        try statement.bind([.text(name)])
        defer { statement.reset() }
        return try statement.step() ? try statement.text(at: 0) : nil
    }

    private func tagSummaries(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [TagSummary] {
        let statement = try database.cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var found: [TagSummary] = []
        while try statement.step() {
            found.append(TagSummary(name: try statement.text(at: 0), count: Int(try statement.integer(at: 1)),
                                    unreadCount: Int(try statement.integer(at: 2))))
        }
        return found
    }
}

extension Schema {
    /// A message's tag names in one column (NULL for none), for a row read with the message.
    /// While no message has a tag, the first test (which SQLite runs once per statement, not per
    /// row: it names no column of the row) spares each row its look-up.
    static func tagNames(of id: String) -> String {
        """
        CASE WHEN (SELECT 1 FROM message_tags LIMIT 1) IS NULL THEN NULL ELSE
            (SELECT group_concat(t.name, char(31)) FROM message_tags mt JOIN tags t ON t.id = mt.tag WHERE mt.message = \(id)) END
        """
    }

    /// The names of a `tagNames` column, sorted as lists show them.
    static func tags(inNames column: String) -> [String] {
        Tag.sorted(column.split(separator: "\u{1F}").map(String.init))
    }
}
