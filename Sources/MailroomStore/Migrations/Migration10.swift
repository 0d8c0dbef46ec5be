extension Schema {
    /// Searches by address, by substring in scripts written without spaces, and by attachment.
    ///
    /// The index's author of a mailed message is its From header, names and addresses (the
    /// envelope sender when it has none; `indexedAuthor`): from: finds an address. Mailed messages are taken out with the words they went in with and put
    /// back with these.
    ///
    /// `search_cjk` (trigram) holds the fields that have Japanese, Chinese, Thai, Korean...
    /// text (`SearchText.spaceless`), so any three characters of such a run are found; other
    /// fields go in as "" and a message with none is not written at all, so mail in other
    /// languages costs it nothing. No sizes per row (`columnsize = 0`): nothing ranks.
    ///
    /// `listed_attachments` counts a mail's parts listed as attachments (`listedAttachment`),
    /// worked out once at intake: has:attachment is a look-up, not a join of every part with
    /// the HTML for every message it meets; the partial index lists, in id order, only the
    /// mail that has some, so a search of has:attachment alone reads those rows, not all.
    static let migration10 = Migration(version: 10, sql: """
        CREATE VIRTUAL TABLE search_cjk USING fts5(
            subject, author, recipients, body, content = '', columnsize = 0, tokenize = 'trigram');

        ALTER TABLE mail ADD COLUMN listed_attachments INTEGER NOT NULL DEFAULT 0;
        UPDATE mail SET listed_attachments =
            (SELECT count(*) FROM attachments a WHERE a.raw = mail.raw AND \(listedAttachment("a", html: "mail.html")))
            WHERE raw IN (SELECT raw FROM attachments);
        CREATE INDEX mail_with_attachments ON mail (id) WHERE listed_attachments > 0;

        INSERT INTO search (search, rowid, subject, author, recipients, body)
            SELECT 'delete', h.id, h.subject, h.author, \(recipients("h")), searchable(\(plainRawBody(of: "b")))
            FROM mail x JOIN headers h ON h.id = x.id JOIN bodies b ON b.id = x.id;
        INSERT INTO search (rowid, subject, author, recipients, body)
            SELECT h.id, h.subject, \(indexedAuthor(id: "h.id", header: "h.author")), \(recipients("h")), searchable(\(plainRawBody(of: "b")))
            FROM mail x JOIN headers h ON h.id = x.id JOIN bodies b ON b.id = x.id;
        \(substringIndexing(id: "h.id", subject: "h.subject", author: "h.author", body: plainRawBody(of: "b"),
                            from: "FROM headers h JOIN bodies b ON b.id = h.id"))

        \(searchTriggers(readingBodiesWith: plainRawBody(of:)))
        """)
}
