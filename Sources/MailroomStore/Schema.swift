/// The tables Mailroom keeps, built up by numbered migrations.
///
/// The file's `PRAGMA user_version` says which migrations it has; each missing one runs in its
/// own transaction, which also records its version. Append new migrations; never edit old ones.
enum Schema {
    struct Migration {
        let version: Int32
        let sql: String
    }

    static let migrations: [Migration] = [
        Migration(version: 1, sql: """
            CREATE TABLE mailboxes (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL
            );
            INSERT INTO mailboxes (id, name) VALUES (1, 'Inbox'), (2, 'Archive'), (3, 'Trash');
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
                position INTEGER NOT NULL,
                subject TEXT NOT NULL,
                body TEXT NOT NULL,
                author TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                unread INTEGER NOT NULL,
                flagged INTEGER NOT NULL,
                origin_mailbox INTEGER,
                origin_offset INTEGER,
                origin_anchor INTEGER
            );
            CREATE INDEX messages_by_mailbox ON messages (mailbox, position);
            CREATE TABLE counters (
                name TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
            INSERT INTO counters (name, value) VALUES ('next_message_id', 1), ('next_mailbox_id', 100);
            """),
        // Values that must outlive a restart, such as the secret that forms carry.
        Migration(version: 2, sql: """
            CREATE TABLE settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            """),
        // Lists at any size: a sparse rank per message instead of a dense position (a delete or
        // a move writes only the rows it touches), the revision at which each message entered
        // its mailbox (so "all N" means the N counted), bodies in a table of their own (a list
        // page never reads one), counts kept by triggers, and a full-text index kept the same way.
        Migration(version: 3, sql: """
            CREATE TABLE messages3 (
                id INTEGER PRIMARY KEY,
                mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
                rank INTEGER NOT NULL,
                entered INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                unread INTEGER NOT NULL,
                flagged INTEGER NOT NULL,
                subject TEXT NOT NULL,
                author TEXT NOT NULL,
                preview TEXT NOT NULL,
                origin_mailbox INTEGER,
                origin_rank INTEGER,
                trashed_in INTEGER
            );
            INSERT INTO messages3
                SELECT m.id, m.mailbox, m.position * \(Rank.gap), 0, m.created_at, m.unread, m.flagged,
                       m.subject, m.author, substr(m.body, 1, \(Rank.previewLength)), m.origin_mailbox,
                       CASE WHEN m.origin_mailbox IS NULL THEN NULL ELSE COALESCE(
                           (SELECT a.position * \(Rank.gap) + \(Rank.gap / 2) FROM messages a
                            WHERE a.id = m.origin_anchor AND a.mailbox = m.origin_mailbox),
                           ((SELECT count(*) FROM messages c WHERE c.mailbox = m.origin_mailbox) - 1 - m.origin_offset)
                               * \(Rank.gap) + \(Rank.gap / 2)) END,
                       CASE WHEN m.origin_mailbox IS NULL THEN NULL ELSE 0 END
                FROM messages m;
            CREATE TABLE bodies (
                id INTEGER PRIMARY KEY,
                body TEXT NOT NULL
            );
            INSERT INTO bodies SELECT id, body FROM messages;
            DROP TABLE messages;
            ALTER TABLE messages3 RENAME TO messages;
            -- Not UNIQUE: a swap of two ranks passes through a moment where both rows hold one rank.
            CREATE INDEX messages_by_rank ON messages (mailbox, rank);
            CREATE INDEX messages_by_entry ON messages (mailbox, entered);
            -- Searches list a mailbox's matches newest first, by id.
            CREATE INDEX messages_by_id ON messages (mailbox, id);
            INSERT INTO counters (name, value) VALUES ('revision', 1), ('next_deletion', 1);

            ALTER TABLE mailboxes ADD COLUMN total INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE mailboxes ADD COLUMN unread INTEGER NOT NULL DEFAULT 0;
            UPDATE mailboxes SET
                total = (SELECT count(*) FROM messages WHERE mailbox = mailboxes.id),
                unread = (SELECT count(*) FROM messages WHERE mailbox = mailboxes.id AND unread = 1);
            CREATE TRIGGER count_added AFTER INSERT ON messages BEGIN
                UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
            END;
            CREATE TRIGGER count_removed AFTER DELETE ON messages BEGIN
                UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
            END;
            CREATE TRIGGER count_changed AFTER UPDATE OF mailbox, unread ON messages
            WHEN OLD.mailbox != NEW.mailbox OR OLD.unread != NEW.unread BEGIN
                UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
                UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
            END;

            CREATE VIRTUAL TABLE search USING fts5(
                subject, author, recipients, body, content = '', tokenize = 'unicode61 remove_diacritics 2');
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT m.id, m.subject, m.author, '', b.body FROM messages m JOIN bodies b USING (id);
            -- The index holds no text of its own, so taking a row out of it needs the words it went in with.
            CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, '', NEW.body FROM messages WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, '', OLD.body FROM messages WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, '', OLD.body FROM messages WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, '', NEW.body FROM messages WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON messages BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, '', body FROM bodies WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON messages BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, '', body FROM bodies WHERE id = NEW.id;
            END;
            """),
        // Where a message is apart from what it says: `messages` keeps only the narrow columns a
        // move, a delete or a mark rewrites, and `headers` the subject, sender and preview. A
        // delete of 100,000 messages scattered through a million then dirties about 30 MB of
        // pages instead of 300 MB. Deleting a message takes its headers and body with it.
        // Searches without words list matches in the mailbox's own order, as the list does.
        Migration(version: 4, sql: """
            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            CREATE TABLE headers (
                id INTEGER PRIMARY KEY,
                subject TEXT NOT NULL,
                author TEXT NOT NULL,
                preview TEXT NOT NULL
            );
            INSERT INTO headers SELECT id, subject, author, preview FROM messages;
            CREATE TABLE messages4 (
                id INTEGER PRIMARY KEY,
                mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
                rank INTEGER NOT NULL,
                entered INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                unread INTEGER NOT NULL,
                flagged INTEGER NOT NULL,
                origin_mailbox INTEGER,
                origin_rank INTEGER,
                trashed_in INTEGER
            );
            INSERT INTO messages4
                SELECT id, mailbox, rank, entered, created_at, unread, flagged, origin_mailbox, origin_rank, trashed_in
                FROM messages;
            DROP TABLE messages;
            ALTER TABLE messages4 RENAME TO messages;
            -- One index, so a move updates two b-trees, not four: it orders every list and every
            -- search without words, and it holds what "all N as of a revision" counts.
            CREATE INDEX messages_by_rank ON messages (mailbox, rank, entered);

            CREATE TRIGGER count_added AFTER INSERT ON messages BEGIN
                UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
            END;
            CREATE TRIGGER count_removed AFTER DELETE ON messages BEGIN
                UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
            END;
            -- A statement that moves or marks thousands of rows at once adds up the counts itself,
            -- in one statement per mailbox, and sets this switch while it runs.
            INSERT INTO counters (name, value) VALUES ('counted_in_bulk', 0);
            CREATE TRIGGER count_changed AFTER UPDATE OF mailbox, unread ON messages
            WHEN (OLD.mailbox != NEW.mailbox OR OLD.unread != NEW.unread)
                AND (SELECT value FROM counters WHERE name = 'counted_in_bulk') = 0 BEGIN
                UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
                UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
            END;
            -- The body goes before the headers: taking it out of the index needs their words.
            CREATE TRIGGER forget_message AFTER DELETE ON messages BEGIN
                DELETE FROM bodies WHERE id = OLD.id;
                DELETE FROM headers WHERE id = OLD.id;
            END;

            CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, '', NEW.body FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, '', OLD.body FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, '', OLD.body FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, '', NEW.body FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, '', body FROM bodies WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, '', body FROM bodies WHERE id = NEW.id;
            END;
            """),
        // Mail that arrived over SMTP. Its raw bytes are kept once, however many mailboxes hold
        // a copy (`raw_mail`), with what was parsed from them (`attachments` per raw message);
        // each copy's own row in `mail` has the envelope and headers. Addresses route mail to
        // mailboxes.
        Migration(version: 5, sql: """
            CREATE TABLE raw_mail (
                id INTEGER PRIMARY KEY,
                bytes BLOB NOT NULL
            );
            CREATE TABLE attachments (
                raw INTEGER NOT NULL,
                part INTEGER NOT NULL,
                name TEXT,
                type TEXT NOT NULL,
                size INTEGER NOT NULL,
                content_id TEXT,
                PRIMARY KEY (raw, part)
            ) WITHOUT ROWID;
            CREATE TABLE mail (
                id INTEGER PRIMARY KEY,
                raw INTEGER NOT NULL,
                envelope_from TEXT NOT NULL,
                envelope_to TEXT NOT NULL,
                from_header TEXT NOT NULL,
                to_header TEXT NOT NULL,
                cc_header TEXT NOT NULL,
                sent_at INTEGER,
                message_id TEXT,
                html TEXT,
                size INTEGER NOT NULL,
                peer TEXT NOT NULL
            );
            CREATE INDEX mail_by_raw ON mail (raw);
            CREATE TABLE addresses (
                pattern TEXT NOT NULL,
                mailbox INTEGER NOT NULL,
                PRIMARY KEY (pattern, mailbox)
            ) WITHOUT ROWID;

            DROP TRIGGER forget_message;
            CREATE TRIGGER forget_message AFTER DELETE ON messages BEGIN
                DELETE FROM bodies WHERE id = OLD.id;
                DELETE FROM headers WHERE id = OLD.id;
                DELETE FROM mail WHERE id = OLD.id;
            END;
            -- The raw bytes go with the last copy that refers to them.
            CREATE TRIGGER forget_mail AFTER DELETE ON mail
            WHEN NOT EXISTS (SELECT 1 FROM mail WHERE raw = OLD.raw) BEGIN
                DELETE FROM raw_mail WHERE id = OLD.raw;
                DELETE FROM attachments WHERE raw = OLD.raw;
            END;
            CREATE TRIGGER forget_addresses AFTER DELETE ON mailboxes BEGIN
                DELETE FROM addresses WHERE mailbox = OLD.id;
            END;
            INSERT OR IGNORE INTO counters (name, value) VALUES ('next_raw_id', 1);

            -- The index's recipients are a mailed message's To, Cc and envelope recipients (a
            -- posted message has none), so to: finds mail. The mail row is written before the
            -- body, and goes after it.
            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            DROP TRIGGER reindex_words;
            DROP TRIGGER reindexed_words;
            CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), NEW.body FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), OLD.body FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), OLD.body FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), NEW.body FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), body FROM bodies WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), body FROM bodies WHERE id = NEW.id;
            END;
            """),
        // Mail brought in by `mailroom import` carries the SHA-256 of its bytes, so importing the
        // same file again skips what is already here. The key goes with the raw bytes, so mail
        // deleted for good comes back if imported again.
        Migration(version: 6, sql: """
            ALTER TABLE raw_mail ADD COLUMN import_key BLOB;
            CREATE UNIQUE INDEX raw_mail_by_import_key ON raw_mail (import_key) WHERE import_key IS NOT NULL;
            """),
        // A body reaches the index through `searchable(...)` (SearchText): without its runs of
        // more than 255 ASCII letters and digits, which no search asks for and which cost the
        // index more than everything else in such a mail. Taking a body out passes it through
        // the same function, so it takes out what went in. Bodies indexed before this version
        // went in whole: taking one out now leaves its overlong runs behind in the index, where
        // they match nothing (searches meet the index's rows through `messages`, and ids are
        // never reused); such runs are rare, so the index is not rebuilt for them.
        //
        // Mail imported in bulk is indexed once per batch, by one statement, not by a trigger
        // a row (`indexed_in_bulk`, set only inside the importing transaction): a trigger that
        // writes the index makes every later statement of the transaction flush the index's
        // pending words to the file, which doubled the cost of storing a small message.
        Migration(version: 7, sql: """
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
            """),
        // A big plain mail's text is most of its raw bytes: kept in its body row too, every such
        // byte was written twice (half the file, half the import's writing, for a mailbox of
        // plain-text reports). A body can now be a part of its raw mail instead: `raw_start`
        // (counted from 0) and `raw_length`, with an empty `body`. Only a text that is those
        // bytes exactly is kept so (`Transaction.bodyInRaw`); everything that reads a body
        // reads it through `body(of:)`, and so do the triggers, which take out what went in.
        Migration(version: 8, sql: """
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
                    SELECT id, subject, author, \(recipients("NEW")), searchable(\(body(of: "NEW"))) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(body(of: "OLD"))) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(body(of: "OLD"))) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), searchable(\(body(of: "NEW"))) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), searchable(\(body(of: "b"))) FROM bodies b WHERE b.id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), searchable(\(body(of: "b"))) FROM bodies b WHERE b.id = NEW.id;
            END;
            """),
        // Where each attachment's encoded content lies in its raw mail (`content_start` counted
        // from 0, `content_length`) and its transfer encoding, found by the parse at intake: a
        // download reads and decodes those bytes alone. Attachments stored before have none
        // (NULL); the first download of one finds them with one parse and records them, so
        // opening an old file never re-parses its mail.
        Migration(version: 9, sql: """
            ALTER TABLE attachments ADD COLUMN content_start INTEGER;
            ALTER TABLE attachments ADD COLUMN content_length INTEGER;
            ALTER TABLE attachments ADD COLUMN encoding TEXT;
            """),
        // Searches by address, by substring in scripts written without spaces, and by attachment.
        //
        // The index's author of a mailed message is its From header, names and addresses (the
        // envelope sender when it has none; `indexedAuthor`): from: finds an address. Mailed messages are taken out with the words they went in with and put
        // back with these.
        //
        // `search_cjk` (trigram) holds the fields that have Japanese, Chinese, Thai, Korean...
        // text (`SearchText.spaceless`), so any three characters of such a run are found; other
        // fields go in as "" and a message with none is not written at all, so mail in other
        // languages costs it nothing. No sizes per row (`columnsize = 0`): nothing ranks.
        //
        // `listed_attachments` counts a mail's parts listed as attachments (`listedAttachment`),
        // worked out once at intake: has:attachment is a look-up, not a join of every part with
        // the HTML for every message it meets; the partial index lists, in id order, only the
        // mail that has some, so a search of has:attachment alone reads those rows, not all.
        Migration(version: 10, sql: """
            CREATE VIRTUAL TABLE search_cjk USING fts5(
                subject, author, recipients, body, content = '', columnsize = 0, tokenize = 'trigram');

            ALTER TABLE mail ADD COLUMN listed_attachments INTEGER NOT NULL DEFAULT 0;
            UPDATE mail SET listed_attachments =
                (SELECT count(*) FROM attachments a WHERE a.raw = mail.raw AND \(listedAttachment("a", html: "mail.html")))
                WHERE raw IN (SELECT raw FROM attachments);
            CREATE INDEX mail_with_attachments ON mail (id) WHERE listed_attachments > 0;

            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', h.id, h.subject, h.author, \(recipients("h")), searchable(\(body(of: "b")))
                FROM mail x JOIN headers h ON h.id = x.id JOIN bodies b ON b.id = x.id;
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT h.id, h.subject, \(indexedAuthor(id: "h.id", header: "h.author")), \(recipients("h")), searchable(\(body(of: "b")))
                FROM mail x JOIN headers h ON h.id = x.id JOIN bodies b ON b.id = x.id;
            \(substringIndexing(id: "h.id", subject: "h.subject", author: "h.author", body: body(of: "b"),
                                from: "FROM headers h JOIN bodies b ON b.id = h.id"))

            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            DROP TRIGGER reindex_words;
            DROP TRIGGER reindexed_words;
            CREATE TRIGGER index_body AFTER INSERT ON bodies
            WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
                \(indexing(id: "NEW.id", subject: "h.subject", author: "h.author", body: body(of: "NEW"),
                           from: "FROM headers h WHERE h.id = NEW.id").joined(separator: "\n"))
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                \(indexing(id: "OLD.id", subject: "h.subject", author: "h.author", body: body(of: "OLD"),
                           from: "FROM headers h WHERE h.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                \(indexing(id: "OLD.id", subject: "h.subject", author: "h.author", body: body(of: "OLD"),
                           from: "FROM headers h WHERE h.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                \(indexing(id: "NEW.id", subject: "h.subject", author: "h.author", body: body(of: "NEW"),
                           from: "FROM headers h WHERE h.id = NEW.id").joined(separator: "\n"))
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                \(indexing(id: "OLD.id", subject: "OLD.subject", author: "OLD.author", body: body(of: "b"),
                           from: "FROM bodies b WHERE b.id = OLD.id", delete: true).joined(separator: "\n"))
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                \(indexing(id: "NEW.id", subject: "NEW.subject", author: "NEW.author", body: body(of: "b"),
                           from: "FROM bodies b WHERE b.id = NEW.id").joined(separator: "\n"))
            END;
            """),
    ]

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

    /// The text of the body row `row` (a table alias, `NEW` or `OLD`): its own, or the part of
    /// its raw mail it points at.
    static func body(of row: String) -> String {
        "(CASE WHEN \(row).raw_start IS NULL THEN \(row).body ELSE CAST(substr((SELECT r.bytes FROM mail x JOIN raw_mail r "
            + "ON r.id = x.raw WHERE x.id = \(row).id), \(row).raw_start + 1, \(row).raw_length) AS TEXT) END)"
    }

    /// A mailed message's recipients as the search index holds them; empty for a posted one.
    static func recipients(_ row: String) -> String {
        "coalesce((SELECT x.to_header || ' ' || x.cc_header || ' ' || replace(x.envelope_to, char(10), ' ') "
            + "FROM mail x WHERE x.id = \(row).id), '')"
    }

    static var currentVersion: Int32 { migrations.last?.version ?? 0 }

    /// The migrations `database` still needs; a file from a newer Mailroom is refused, untouched.
    static func pendingMigrations(in database: Database) throws(StoreError) -> [Migration] {
        let version = try database.userVersion
        guard version <= currentVersion else {
            throw .newerSchema(path: database.path, found: version, known: currentVersion)
        }
        return migrations.filter { $0.version > version }
    }

    static func apply(_ pending: [Migration], to database: Database) throws(StoreError) {
        for migration in pending {
            try database.transaction { () throws(StoreError) in
                try database.execute(migration.sql)
                try database.setUserVersion(migration.version)
            }
        }
    }
}
