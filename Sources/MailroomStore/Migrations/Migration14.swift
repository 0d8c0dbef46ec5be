extension Schema {
    /// A mail's HTML may be kept compressed (`PackedHTML`): `mail.html` then holds a zstd frame
    /// as a blob, which only this Mailroom and later read. No table changes; the version says
    /// that an older Mailroom must not open the file.
    static let migration14 = Migration(version: 14, sql: "SELECT 1;")
}
