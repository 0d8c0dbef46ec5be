import Compression
private import CSQLite

/// A mail's HTML part, decoded, as the message page shows it, kept zstd-compressed: it is the raw
/// mail's HTML again (decoded from quoted-printable or base64, made UTF-8), and the raw mail is
/// compressed, so kept plain it is often the larger of the two. `mail.html` holds it as a blob, one
/// zstd frame that records its size and checksum; HTML under `minimumBytes`, and HTML stored
/// before (schema 13 and older), is text. NULL: the mail has no HTML.
enum PackedHTML {
    /// Shorter HTML is kept as text: compressing it saves less than a frame's overhead is worth.
    static let minimumBytes = 512

    /// What `mail.html` is given for `html`, of a mail of `mailSize` bytes: a compressed frame,
    /// or the text itself.
    static func stored(_ html: String?, mailSize: Int, codec: ZstdCodec?) -> SQLValue {
        guard let html else { return .null }
        return frame(of: html, mailSize: mailSize, codec: codec).map { .blob($0) } ?? .text(html)
    }

    /// `html`, of a mail of `mailSize` bytes, as the frame `mail.html` keeps; nil when it is kept
    /// as text: short, larger than a frame of such a mail may hold (`limit`: a legacy charset
    /// can make several characters of one byte), or zstd failed.
    static func frame(of html: String?, mailSize: Int, codec: ZstdCodec?) -> [UInt8]? {
        guard var html, html.utf8.count >= minimumBytes, html.utf8.count <= limit(forMailOf: mailSize), let codec else { return nil }
        return html.withUTF8 { codec.compress(UnsafeRawBufferPointer($0), dictionary: nil) }
    }

    /// The HTML a compressed frame holds, never more than `limit` bytes; nil when the frame is
    /// damaged or says it holds more.
    static func html(of frame: [UInt8], codec: ZstdCodec?, limit: Int) -> String? {
        guard let codec else { return nil }
        return frame.withUnsafeBytes { input -> String? in
            guard let size = Zstd.contentSize(of: input), size <= limit else { return nil }
            var failed = false
            let html = String(unsafeUninitializedCapacity: size) { output in
                guard codec.decompress(input, into: UnsafeMutableRawBufferPointer(output), dictionary: nil) else {
                    failed = true
                    return 0
                }
                return size
            }
            return failed ? nil : html
        }
    }

    /// The most a frame of a mail's HTML holds: 4 bytes of UTF-8 for every byte the mail took,
    /// and at least 1 MiB (a damaged frame cannot ask for more memory than that). HTML that a
    /// charset made larger still is kept as text.
    static func limit(forMailOf size: Int) -> Int {
        max(size, 1 << 18) * 4
    }
}

extension Database {
    /// Makes `html_text(html, size)` callable from SQL on `handle`: the text of a `mail.html`
    /// value, compressed or not, of a mail of `size` bytes (`mail.size`); NULL for NULL or a
    /// damaged frame. What SQL that looks into the HTML (which parts it shows inline) reads it with.
    static func registerHTMLText(on handle: OpaquePointer, for database: Database) -> Int32 {
        sqlite3_create_function_v2(
            handle, "html_text", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, Unmanaged.passUnretained(database).toOpaque(),
            { context, count, arguments in
                guard count == 2, let arguments, let owner = sqlite3_user_data(context), let value = arguments[0], let size = arguments[1] else {
                    sqlite3_result_null(context)
                    return
                }
                switch sqlite3_value_type(value) {
                case SQLITE_TEXT:
                    sqlite3_result_value(context, value)
                case SQLITE_BLOB:
                    let database = Unmanaged<Database>.fromOpaque(owner).takeUnretainedValue()
                    let length = Int(sqlite3_value_bytes(value))
                    guard length > 0, let bytes = sqlite3_value_blob(value) else {
                        sqlite3_result_null(context)
                        return
                    }
                    let frame = Array(UnsafeRawBufferPointer(start: bytes, count: length))
                    let limit = PackedHTML.limit(forMailOf: Int(sqlite3_value_int64(size)))
                    guard let html = PackedHTML.html(of: frame, codec: database.codec, limit: limit) else {
                        sqlite3_result_null(context)
                        return
                    }
                    var text = html
                    text.withUTF8 { utf8 in
                        utf8.withMemoryRebound(to: CChar.self) { characters in
                            sqlite3_result_text64(
                                context, characters.baseAddress, sqlite3_uint64(characters.count), mailroom_sqlite_transient(),
                                UInt8(SQLITE_UTF8))
                        }
                    }
                default:
                    sqlite3_result_null(context)
                }
            },
            nil, nil, nil)
    }
}
