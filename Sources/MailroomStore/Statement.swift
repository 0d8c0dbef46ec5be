private import CSQLite

/// One compiled SQL statement, which owns a `sqlite3_stmt*`.
final class Statement {
    private let handle: OpaquePointer
    private let database: Database
    /// The text as written, with `?` for each parameter: what errors show, never the values.
    let sql: String

    init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        // finalize repeats the last step's error, which that step already threw.
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to its parameters, in order.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        reset()
        try database.check(sqlite3_clear_bindings(handle), sql: sql)
        precondition(values.count == Int(sqlite3_bind_parameter_count(handle)), "wrong number of values for \(sql)")
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code = switch value {
            case .integer(let number):
                sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                // withCString lends the whole UTF-8 buffer, NUL bytes inside the text included.
                text.withCString { bytes in
                    sqlite3_bind_text64(
                        handle, index, bytes, UInt64(text.utf8.count), mailroom_sqlite_transient(),
                        UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), mailroom_sqlite_transient())
                }
            case .null:
                sqlite3_bind_null(handle, index)
            }
            try database.check(code, sql: sql)
        }
    }

    /// Advances to the next row; false once there are no more.
    func step() throws(StoreError) -> Bool {
        try database.check(sqlite3_step(handle), sql: sql) == SQLITE_ROW
    }

    /// Binds `values` and runs a statement that returns no rows.
    func run(_ values: [SQLValue]) throws(StoreError) {
        try bind(values)
        while try step() {}
        reset()
    }

    /// Makes the statement ready to run again, keeping its bindings.
    func reset() {
        // reset returns the last step's error again; that step already threw it.
        sqlite3_reset(handle)
    }

    // MARK: Columns (0-based), checked against what the file really holds

    func integer(at column: Int) throws(StoreError) -> Int64 {
        try expect(SQLITE_INTEGER, at: column, "a whole number")
        return sqlite3_column_int64(handle, Int32(column))
    }

    func optionalInteger(at column: Int) throws(StoreError) -> Int64? {
        if sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL { return nil }
        return try integer(at: column)
    }

    func text(at column: Int) throws(StoreError) -> String {
        try expect(SQLITE_TEXT, at: column, "text")
        let index = Int32(column)
        // Ask for the bytes before their count, as SQLite's documentation requires.
        guard let bytes = sqlite3_column_text(handle, index) else {
            throw .sqlite(code: SQLITE_NOMEM, message: "out of memory reading a column", sql: sql)
        }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(at column: Int) throws(StoreError) -> String? {
        if sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL { return nil }
        return try text(at: column)
    }

    func blob(at column: Int) throws(StoreError) -> [UInt8] {
        let index = Int32(column)
        // An empty blob may read as NULL; both are no bytes.
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return [] }
        try expect(SQLITE_BLOB, at: column, "binary data")
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Whether the column holds binary data (rather than text, a number or NULL).
    func isBlob(at column: Int) -> Bool {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_BLOB
    }

    func optionalBlob(at column: Int) throws(StoreError) -> [UInt8]? {
        if sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL { return nil }
        return try blob(at: column)
    }

    private func expect(_ type: Int32, at column: Int, _ expected: String) throws(StoreError) {
        let index = Int32(column)
        let found = sqlite3_column_type(handle, index)
        guard found != type else { return }
        let name = sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "column \(column)"
        let kinds = [SQLITE_INTEGER: "a whole number", SQLITE_FLOAT: "a decimal number", SQLITE_TEXT: "text",
                     SQLITE_BLOB: "binary data", SQLITE_NULL: "nothing (NULL)"]
        throw .invalidData("the column “\(name)” holds \(kinds[found] ?? "an unknown type") where \(expected) belongs")
    }
}
