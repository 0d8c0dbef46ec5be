/// SQL the migrations, the triggers and the queries share, so the rules they state are written once.
extension Schema {
    /// Whether attachment row `attachment` (a table alias) is listed as an attachment of a mail
    /// whose HTML is `html` (an SQL expression, maybe NULL): every part is, except an inline
    /// one, which has a Content-ID that the HTML refers to as `cid:` (the Content-ID is kept
    /// without its angle brackets). The one rule for has:attachment, the list's rows and the
    /// message page.
    static func listedAttachment(_ attachment: String, html: String) -> String {
        "NOT (\(attachment).content_id IS NOT NULL AND \(attachment).content_id != '' "
            + "AND instr(coalesce(\(html), ''), 'cid:' || \(attachment).content_id) > 0)"
    }

    /// What the indexes hold as the author of message `id` (an SQL expression): a mailed
    /// message's From header (names and addresses), or its envelope sender when it has none;
    /// `header` (the headers' author) for a posted one. The envelope sender beside a From header
    /// is left out: it is mostly a bounce address no one searches for, and it made the word
    /// index of the 1 GB import bench about 15% larger.
    static func indexedAuthor(id: String, header: String) -> String {
        "coalesce((SELECT CASE WHEN x.from_header = '' THEN x.envelope_from ELSE x.from_header END "
            + "FROM mail x WHERE x.id = \(id)), \(header))"
    }

    /// A mailed message's recipients as the indexes hold them, for message `id` (an SQL
    /// expression); empty for a posted one.
    static func indexedRecipients(id: String) -> String {
        "coalesce((SELECT x.to_header || ' ' || x.cc_header || ' ' || replace(x.envelope_to, char(10), ' ') "
            + "FROM mail x WHERE x.id = \(id)), '')"
    }

    /// The statements that put one message, or every message `from` selects, into both indexes,
    /// or with `delete` take it out with exactly the words it went in with: `id`, `subject`,
    /// `author` (the headers' author) and `body` are SQL expressions over `from` (a FROM clause
    /// with its WHERE).
    static func indexing(id: String, subject: String, author: String, body: String, from: String, delete: Bool = false) -> [String] {
        let command = delete ? "'delete', " : ""
        let table = delete ? "search, " : ""
        return [
            """
            INSERT INTO search (\(table)rowid, subject, author, recipients, body)
                SELECT \(command)\(id), \(subject), \(indexedAuthor(id: id, header: author)), \(indexedRecipients(id: id)), searchable(\(body))
                \(from);
            """,
            substringIndexing(id: id, subject: subject, author: author, body: body, from: from, delete: delete),
        ]
    }

    /// The statement of `indexing` for the substring index alone: a message with no field for
    /// it is not written (nor, since the fields are the same, taken out).
    static func substringIndexing(id: String, subject: String, author: String, body: String, from: String, delete: Bool = false) -> String {
        let command = delete ? "'delete', " : ""
        let table = delete ? "search_cjk, " : ""
        return """
            INSERT INTO search_cjk (\(table)rowid, subject, author, recipients, body)
                SELECT \(command)i, s, a, r, b FROM (SELECT \(id) AS i, spaceless(\(subject)) AS s,
                    spaceless(\(indexedAuthor(id: id, header: author))) AS a, spaceless(\(indexedRecipients(id: id))) AS r,
                    spaceless(searchable(\(body))) AS b
                    \(from))
                WHERE s != '' OR a != '' OR r != '' OR b != '';
            """
    }

    /// The search index's six triggers, dropped and made again (as schema 10 made them), with
    /// bodies read by `body`: what a migration runs when the way a body is read changes.
    static func searchTriggers(readingBodiesWith body: (String) -> String) -> String {
        """
            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            DROP TRIGGER reindex_words;
            DROP TRIGGER reindexed_words;
            CREATE TRIGGER index_body AFTER INSERT ON bodies
            WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
                \(indexing(id: "NEW.id", subject: "h.subject", author: "h.author", body: body("NEW"),
                           from: "FROM headers h WHERE h.id = NEW.id").joined(separator: "\n"))
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                \(indexing(id: "OLD.id", subject: "h.subject", author: "h.author", body: body("OLD"),
                           from: "FROM headers h WHERE h.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                \(indexing(id: "OLD.id", subject: "h.subject", author: "h.author", body: body("OLD"),
                           from: "FROM headers h WHERE h.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                \(indexing(id: "NEW.id", subject: "h.subject", author: "h.author", body: body("NEW"),
                           from: "FROM headers h WHERE h.id = NEW.id").joined(separator: "\n"))
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                \(indexing(id: "OLD.id", subject: "OLD.subject", author: "OLD.author", body: body("b"),
                           from: "FROM bodies b WHERE b.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                \(indexing(id: "NEW.id", subject: "NEW.subject", author: "NEW.author", body: body("b"),
                           from: "FROM bodies b WHERE b.id = NEW.id").joined(separator: "\n"))
            END;
            """
    }

    /// The text of the body row `row` (a table alias, `NEW` or `OLD`): its own, or the part of
    /// its raw mail it points at, however the raw mail is kept (`raw_text`, RawPacking.swift).
    static func body(of row: String) -> String {
        "(CASE WHEN \(row).raw_start IS NULL THEN \(row).body ELSE raw_text((SELECT x.raw FROM mail x "
            + "WHERE x.id = \(row).id), \(row).raw_start, \(row).raw_length) END)"
    }

    /// `body(of:)` as schemas 8 to 12 read it, from raw mail kept as it came: what their
    /// migrations run on.
    static func plainRawBody(of row: String) -> String {
        "(CASE WHEN \(row).raw_start IS NULL THEN \(row).body ELSE CAST(substr((SELECT r.bytes FROM mail x JOIN raw_mail r "
            + "ON r.id = x.raw WHERE x.id = \(row).id), \(row).raw_start + 1, \(row).raw_length) AS TEXT) END)"
    }

    /// A mailed message's recipients as the search index holds them; empty for a posted one.
    static func recipients(_ row: String) -> String {
        "coalesce((SELECT x.to_header || ' ' || x.cc_header || ' ' || replace(x.envelope_to, char(10), ' ') "
            + "FROM mail x WHERE x.id = \(row).id), '')"
    }
}
