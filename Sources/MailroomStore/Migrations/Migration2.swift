extension Schema {
    /// Values that must outlive a restart, such as the secret that forms carry.
    static let migration2 = Migration(version: 2, sql: """
        CREATE TABLE settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """)
}
