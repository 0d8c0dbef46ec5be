extension Schema {
    /// A big plain mail's text is most of its raw bytes: kept in its body row too, every such
    /// byte was written twice (half the file, half the import's writing, for a mailbox of
    /// plain-text reports). A body can now be a part of its raw mail instead: `raw_start`
    /// (counted from 0) and `raw_length`, with an empty `body`. Only a text that is those
    /// bytes exactly is kept so (`Transaction.bodyInRaw`); everything that reads a body
    /// reads it through `body(of:)`, and so do the triggers, which take out what went in.
    static let migration8 = Migration(version: 8, sql: """
        ALTER TABLE bodies ADD COLUMN raw_start INTEGER;
        ALTER TABLE bodies ADD COLUMN raw_length INTEGER;
        DROP TRIGGER index_body;
        DROP TRIGGER unindex_body;
        DROP TRIGGER reindex_body;
        DROP TRIGGER reindexed_body;
        DROP TRIGGER reindex_words;
        DROP TRIGGER reindexed_words;
        CREATE TRIGGER index_body AFTER INSERT ON bodies
        WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), searchable(\(plainRawBody(of: "NEW"))) FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(plainRawBody(of: "OLD"))) FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(plainRawBody(of: "OLD"))) FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), searchable(\(plainRawBody(of: "NEW"))) FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), searchable(\(plainRawBody(of: "b"))) FROM bodies b WHERE b.id = OLD.id;
        END;
        CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), searchable(\(plainRawBody(of: "b"))) FROM bodies b WHERE b.id = NEW.id;
        END;
        """)
}
