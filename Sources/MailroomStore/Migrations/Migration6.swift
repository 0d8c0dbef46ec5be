extension Schema {
    /// Mail brought in by `mailroom import` carries the SHA-256 of its bytes, so importing the
    /// same file again skips what is already here. The key goes with the raw bytes, so mail
    /// deleted for good comes back if imported again.
    static let migration6 = Migration(version: 6, sql: """
        ALTER TABLE raw_mail ADD COLUMN import_key BLOB;
        CREATE UNIQUE INDEX raw_mail_by_import_key ON raw_mail (import_key) WHERE import_key IS NOT NULL;
        """)
}
