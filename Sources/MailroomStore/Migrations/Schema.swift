/// The tables Mailroom keeps, built up by numbered migrations.
///
/// The file's `PRAGMA user_version` says which migrations it has; each missing one runs in its
/// own transaction, which also records its version. Append new migrations; never edit old ones.
enum Schema {
    struct Migration {
        let version: Int32
        let sql: String
    }

    /// Every migration, one file each under Migrations/, in version order.
    static let migrations: [Migration] = [
        migration1,
        migration2,
        migration3,
        migration4,
        migration5,
        migration6,
        migration7,
        migration8,
        migration9,
        migration10,
        migration11,
        migration12,
        migration13,
        migration14,
    ]

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
