extension Schema {
    /// Where each attachment's encoded content lies in its raw mail (`content_start` counted
    /// from 0, `content_length`) and its transfer encoding, found by the parse at intake: a
    /// download reads and decodes those bytes alone. Attachments stored before have none
    /// (NULL); the first download of one finds them with one parse and records them, so
    /// opening an old file never re-parses its mail.
    static let migration9 = Migration(version: 9, sql: """
        ALTER TABLE attachments ADD COLUMN content_start INTEGER;
        ALTER TABLE attachments ADD COLUMN content_length INTEGER;
        ALTER TABLE attachments ADD COLUMN encoding TEXT;
        """)
}
