extension Schema {
    /// Raw mail kept compressed (RawPacking.swift): `raw_mail.bytes` holds zstd frames once a
    /// row in `raw_packing` says how (length, SHA-256, dictionary, frame sizes); a row without
    /// one is kept as it came. `raw_dictionaries` holds each mailbox's dictionary (an empty one
    /// records that its mail gave none). Rows older than `raw_plain_below` may still be plain:
    /// the packer (`Store.packRaws`) compresses them in small batches from `raw_packed_from`.
    ///
    /// A body kept in its raw mail is read through `raw_text`, so the search triggers are made
    /// again with the new `body(of:)`.
    static let migration13 = Migration(version: 13, sql: """
        CREATE TABLE raw_packing (
            id INTEGER PRIMARY KEY,
            length INTEGER NOT NULL,
            sha256 BLOB NOT NULL,
            dictionary INTEGER,
            frames BLOB
        );
        CREATE INDEX raw_packing_without_dictionary ON raw_packing (id) WHERE dictionary IS NULL;
        CREATE TABLE raw_dictionaries (
            id INTEGER PRIMARY KEY,
            mailbox INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            samples INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX raw_dictionaries_by_mailbox ON raw_dictionaries (mailbox, id);
        CREATE TRIGGER forget_packing AFTER DELETE ON raw_mail BEGIN
            DELETE FROM raw_packing WHERE id = OLD.id;
        END;
        INSERT INTO counters (name, value) VALUES ('raw_plain_below', (SELECT coalesce(max(id), 0) + 1 FROM raw_mail));
        INSERT INTO counters (name, value) VALUES ('raw_packed_from', (SELECT coalesce(min(id), 0) FROM raw_mail));

        \(searchTriggers(readingBodiesWith: body(of:)))
        """)
}
