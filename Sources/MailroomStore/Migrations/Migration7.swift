extension Schema {
    /// A body reaches the index through `searchable(...)` (SearchText): without its runs of
    /// more than 255 ASCII letters and digits, which no search asks for and which cost the
    /// index more than everything else in such a mail. Taking a body out passes it through
    /// the same function, so it takes out what went in. Bodies indexed before this version
    /// went in whole: taking one out now leaves its overlong runs behind in the index, where
    /// they match nothing (searches meet the index's rows through `messages`, and ids are
    /// never reused); such runs are rare, so the index is not rebuilt for them.
    ///
    /// Mail imported in bulk is indexed once per batch, by one statement, not by a trigger
    /// a row (`indexed_in_bulk`, set only inside the importing transaction): a trigger that
    /// writes the index makes every later statement of the transaction flush the index's
    /// pending words to the file, which doubled the cost of storing a small message.
    static let migration7 = Migration(version: 7, sql: """
        INSERT INTO counters (name, value) VALUES ('indexed_in_bulk', 0);
        DROP TRIGGER index_body;
        DROP TRIGGER unindex_body;
        DROP TRIGGER reindex_body;
        DROP TRIGGER reindexed_body;
        DROP TRIGGER reindex_words;
        DROP TRIGGER reindexed_words;
        CREATE TRIGGER index_body AFTER INSERT ON bodies
        WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), searchable(NEW.body) FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(OLD.body) FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(OLD.body) FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), searchable(NEW.body) FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), searchable(body) FROM bodies WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), searchable(body) FROM bodies WHERE id = NEW.id;
        END;
        """)
}
