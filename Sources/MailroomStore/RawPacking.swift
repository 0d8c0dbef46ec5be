import Compression
private import CSQLite
import Digests
import MailroomCore

/// How a raw message is kept (schema 13): zstd frames of at most `frameBytes` of the mail each,
/// one after another in `raw_mail.bytes`, so a part or a piece of a large mail is read by
/// decompressing only the frames that hold it, and a whole one a frame at a time. Its row in
/// `raw_packing` has the mail's length and SHA-256, the dictionary its frames were made with
/// (nil: none), and each frame's compressed size when there is more than one.
///
/// A raw row with no packing row is kept as it came: a file from before schema 13 that the
/// packer (`Store.packRaws`) has not reached yet.
struct RawPacking: Equatable, Sendable {
    static let frameBytes = 256 * 1_024

    var length: Int
    var sha256: [UInt8]
    var dictionary: Int64?
    /// The compressed size of each frame, in order; nil for one frame, the whole blob.
    var frameSizes: [Int]?

    var frameCount: Int { max(1, (length + Self.frameBytes - 1) / Self.frameBytes) }

    /// Whether `bytes` are the mail this record was made for: its length and its SHA-256.
    func describes(_ bytes: [UInt8]) -> Bool {
        bytes.count == length && MailDigest.sha256(bytes) == sha256
    }

    /// Whether the record can describe a stored mail: a length no message reaches beyond 4 GiB,
    /// and one size for each of its frames.
    var isPlausible: Bool {
        length >= 0 && length <= 1 << 32 && (frameSizes?.count ?? 1) == frameCount
            && (frameSizes?.allSatisfy { $0 > 0 } ?? true)
    }

    /// `frameSizes` as stored: four bytes each, little-endian.
    var storedFrames: [UInt8]? {
        frameSizes.map { sizes in sizes.flatMap { size in (0..<4).map { UInt8(truncatingIfNeeded: size >> ($0 * 8)) } } }
    }

    static func frameSizes(stored: [UInt8]) -> [Int] {
        stride(from: 0, to: stored.count - 3, by: 4).map { at in
            (0..<4).reduce(0) { size, byte in size | Int(stored[at + byte]) << (byte * 8) }
        }
    }

    /// Compresses `bytes` a frame at a time, handing each frame to `each` in order, and says
    /// how they are packed: a large mail is never held compressed as a whole.
    static func compressFrames(of bytes: [UInt8], codec: ZstdCodec, dictionary: (id: Int64, value: ZstdDictionary)?,
                               _ each: ([UInt8]) throws(StoreError) -> Void) throws(StoreError) -> RawPacking {
        var sizes: [Int] = []
        var start = 0
        repeat {
            let end = min(bytes.count, start + frameBytes)
            let frame = bytes.withUnsafeBytes { all in
                codec.compress(UnsafeRawBufferPointer(rebasing: all[start..<end]), dictionary: dictionary?.value)
            }
            guard let frame else { throw .failed("zstd could not compress a mail of \(bytes.count) bytes") }
            try each(frame)
            sizes.append(frame.count)
            start = end
        } while start < bytes.count
        return RawPacking(length: bytes.count, sha256: MailDigest.sha256(bytes), dictionary: dictionary?.id,
                          frameSizes: sizes.count > 1 ? sizes : nil)
    }

    /// Where each frame lies in the blob of `blobLength` bytes, and which bytes of the mail it holds.
    func frames(blobLength: Int) -> [(stored: Range<Int>, holds: Range<Int>)] {
        let sizes = frameSizes ?? [blobLength]
        var start = 0
        return sizes.enumerated().map { index, size in
            defer { start += size }
            let first = index * Self.frameBytes
            return (start..<start + size, first..<min(length, first + Self.frameBytes))
        }
    }
}

/// Raw mail compressed ahead, on the thread that parsed it: what the store writes as it is,
/// so the writer (one thread for every mailbox) does not compress.
public struct PackedRaw: Sendable {
    let blob: [UInt8]
    let packing: RawPacking
}

extension Store {
    /// Compresses `mail` ahead, on the calling thread with a reader connection's contexts: its
    /// raw bytes for the mailbox `recipients` route it to (with its dictionary, when it has
    /// one), unless it is more than one frame (then compressed in place when it is stored), and
    /// its HTML (`PackedHTML`). What fails here is compressed when stored. Any dictionary
    /// decompresses what it made, so a route changed meanwhile costs only ratio.
    public func packAhead(_ mail: inout IncomingMail, routedBy recipients: [String]) {
        let raw = mail.raw
        let html = mail.html
        // Loaded before the tables are read, so a change committed meanwhile is never kept as current.
        let epoch = routingEpoch.load(ordering: .acquiring)
        let dictionaryEpoch = dictionaryEpoch.load(ordering: .acquiring)
        let kept = packingRouting.withLock { $0 }.flatMap { $0.epoch == epoch ? $0.routing : nil }
        let ahead = try? read { reader throws(StoreError) -> (PackedRaw?, [UInt8]?) in
            var packed: PackedRaw?
            if raw.count <= RawPacking.frameBytes {
                let routing: Routing
                if let kept {
                    routing = kept
                } else {
                    routing = try reader.routing()
                    packingRouting.withLock { $0 = (epoch, routing) }
                }
                let box = routing.mailboxes(for: recipients).first?.rawValue ?? MailboxID.inbox.rawValue
                let chosen = packingDictionaries.withLock { $0.epoch == dictionaryEpoch ? $0.ids[box] : nil }
                let id: Int64?
                if let chosen {
                    id = chosen
                } else {
                    id = try reader.database.newestDictionary(forMailbox: box)
                    packingDictionaries.withLock { kept in
                        if kept.epoch != dictionaryEpoch { kept = (dictionaryEpoch, [:]) }
                        kept.ids[box] = .some(id)
                    }
                }
                let dictionary = try id.flatMap { id throws(StoreError) in try reader.database.usableDictionary(id).map { (id, $0) } }
                let (blob, packing) = try reader.database.pack(raw, dictionary: dictionary)
                packed = PackedRaw(blob: blob, packing: packing)
            }
            return (packed, PackedHTML.frame(of: html, mailSize: raw.count, codec: reader.database.codec))
        }
        (mail.packed, mail.packedHTML) = ahead ?? (nil, nil)
    }

    /// A compressor for mail going to `box`, with its dictionary as it is now, for one thread
    /// that reads no database (an import's reading thread); nil when it cannot be made.
    public func packer(for box: MailboxID) -> RawPacker? {
        guard let dictionary = try? read({ reader throws(StoreError) in try reader.database.dictionary(forMailbox: box.rawValue) }),
              let codec = ZstdCodec() else { return nil }
        return RawPacker(codec: codec, dictionary: dictionary)
    }
}

/// Compresses mail of one frame as the store keeps it (`Store.packer(for:)`). Handed to one
/// thread, which alone uses it (its zstd context is not for two at once).
public final class RawPacker: @unchecked Sendable {
    private let codec: ZstdCodec
    private let dictionary: (id: Int64, value: ZstdDictionary)?

    init(codec: ZstdCodec, dictionary: (id: Int64, value: ZstdDictionary)?) {
        self.codec = codec
        self.dictionary = dictionary
    }

    /// `mail`'s raw bytes (of one frame; larger mail is compressed in place when stored) and
    /// HTML, compressed.
    public func pack(_ mail: inout IncomingMail) {
        mail.packed = pack(mail.raw)
        mail.packedHTML = PackedHTML.frame(of: mail.html, mailSize: mail.raw.count, codec: codec)
    }

    /// nil for mail of more than one frame (compressed in place when stored).
    func pack(_ raw: [UInt8]) -> PackedRaw? {
        guard raw.count <= RawPacking.frameBytes else { return nil }
        var blob: [UInt8] = []
        guard let packing = try? RawPacking.compressFrames(of: raw, codec: codec, dictionary: dictionary, { blob += $0 }) else { return nil }
        return PackedRaw(blob: blob, packing: packing)
    }
}

/// A dictionary for a mailbox's raw mail, trained on its first mail.
enum RawDictionaries {
    /// A mailbox gets one once it holds this many mailed messages, trained on its first
    /// `samples` (each cut to `sampleBytes`: headers and the start of the text are what
    /// machine-made mail repeats).
    static let trainingThreshold = 500
    static let samples = 2_000
    /// So training holds at most 8 MiB of samples (and zstd a copy): about a hundred times the
    /// dictionary's size, as zstd's documentation advises.
    static let sampleBytes = 4 * 1_024
    static let capacity = 64 * 1_024
}

extension Database {
    /// `bytes` as raw mail is kept, compressed with `dictionary` when given, all in memory:
    /// for mail of one frame, and for the packer.
    func pack(_ bytes: [UInt8], dictionary: (id: Int64, value: ZstdDictionary)?) throws(StoreError) -> (blob: [UInt8], packing: RawPacking) {
        var blob: [UInt8] = []
        let packing = try compressFrames(of: bytes, dictionary: dictionary) { frame throws(StoreError) in blob += frame }
        return (blob, packing)
    }

    /// `RawPacking.compressFrames` with this connection's contexts.
    func compressFrames(of bytes: [UInt8], dictionary: (id: Int64, value: ZstdDictionary)?,
                        _ each: ([UInt8]) throws(StoreError) -> Void) throws(StoreError) -> RawPacking {
        guard let codec else { throw .failed("zstd could not make a context") }
        return try RawPacking.compressFrames(of: bytes, codec: codec, dictionary: dictionary, each)
    }

    /// How raw message `raw` is packed; nil when it is kept as it came (or gone).
    func packing(ofRaw raw: Int64) throws(StoreError) -> RawPacking? {
        let statement = try cached("SELECT length, sha256, dictionary, frames FROM raw_packing WHERE id = ?")
        try statement.bind([.integer(raw)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return RawPacking(
            length: Int(try statement.integer(at: 0)), sha256: try statement.blob(at: 1),
            dictionary: try statement.optionalInteger(at: 2),
            frameSizes: try statement.optionalBlob(at: 3).map(RawPacking.frameSizes(stored:)))
    }

    /// Dictionary `id`, loaded once per connection.
    func dictionary(_ id: Int64) throws(StoreError) -> ZstdDictionary {
        if let loaded = dictionaries[id] { return loaded }
        let statement = try cached("SELECT bytes FROM raw_dictionaries WHERE id = ?")
        try statement.bind([.integer(id)])
        defer { statement.reset() }
        guard try statement.step(), let dictionary = ZstdDictionary(try statement.blob(at: 0)) else {
            throw .invalidData("raw mail dictionary \(id) is missing or damaged")
        }
        dictionaries[id] = dictionary
        return dictionary
    }

    /// The dictionary new raw mail for `box` is packed with; nil while it has none, or while
    /// its newest one is damaged: mail is then packed without one, which costs only ratio, and
    /// `mailroom check` names the dictionary.
    func dictionary(forMailbox box: Int64) throws(StoreError) -> (id: Int64, value: ZstdDictionary)? {
        guard let id = try newestDictionary(forMailbox: box) else { return nil }
        return try usableDictionary(id).map { (id, $0) }
    }

    /// Dictionary `id`; nil when it is damaged (other failures are thrown).
    func usableDictionary(_ id: Int64) throws(StoreError) -> ZstdDictionary? {
        do {
            return try dictionary(id)
        } catch .invalidData {
            return nil
        }
    }

    /// The id of `box`'s newest dictionary; nil while it has none.
    func newestDictionary(forMailbox box: Int64) throws(StoreError) -> Int64? {
        let statement = try cached("SELECT id FROM raw_dictionaries WHERE mailbox = ? AND length(bytes) > 0 ORDER BY id DESC LIMIT 1")
        try statement.bind([.integer(box)])
        defer { statement.reset() }
        return try statement.step() ? try statement.integer(at: 0) : nil
    }

    /// How many bytes raw message `raw` has; nil when it is gone.
    func rawLength(_ raw: Int64) throws(StoreError) -> Int? {
        if let packing = try packing(ofRaw: raw) { return packing.length }
        return try blobLength(table: "raw_mail", column: "bytes", row: raw)
    }

    /// The whole of raw message `raw`, decompressed a frame at a time into the answer (so a
    /// large mail needs its own size and one frame more); nil when it is gone.
    func rawBytes(_ raw: Int64) throws(StoreError) -> [UInt8]? {
        guard let packing = try packing(ofRaw: raw) else { return try readBlob(table: "raw_mail", column: "bytes", row: raw) }
        return try rawBytes(raw, packing: packing, in: 0..<packing.length)
    }

    /// `count` bytes of raw message `raw` from `offset`, decompressing only the frames that hold
    /// them; nil when the message is gone or shorter.
    func rawBytes(_ raw: Int64, at offset: Int, count: Int) throws(StoreError) -> [UInt8]? {
        guard let packing = try packing(ofRaw: raw) else {
            return try readBlob(table: "raw_mail", column: "bytes", row: raw, at: offset, count: count)
        }
        guard offset >= 0, count >= 0, offset <= packing.length - count else { return nil }
        return try rawBytes(raw, packing: packing, in: offset..<offset + count)
    }

    private func rawBytes(_ raw: Int64, packing: RawPacking, in wanted: Range<Int>) throws(StoreError) -> [UInt8]? {
        guard let codec else { throw .failed("zstd could not make a context") }
        // A damaged row is an error, never a trap or a vast allocation.
        guard packing.isPlausible else { throw .invalidData("raw mail \(raw) has a damaged record of its frames") }
        let dictionary = try packing.dictionary.map { id throws(StoreError) in try self.dictionary(id) }
        var output = [UInt8](repeating: 0, count: wanted.count)
        let done = try withBlob(table: "raw_mail", column: "bytes", row: raw) { blob throws(StoreError) in
            var stored: [UInt8] = []
            var whole: [UInt8] = []
            for frame in packing.frames(blobLength: blob.count) where frame.holds.overlaps(wanted) || frame.holds.isEmpty {
                stored = try blob.read(frame.stored)
                let needed = frame.holds.clamped(to: wanted)
                let decompressed = stored.withUnsafeBytes { input in
                    if needed == frame.holds {
                        // The whole frame is wanted: straight into the answer.
                        return output.withUnsafeMutableBytes { out in
                            codec.decompress(input, into: UnsafeMutableRawBufferPointer(
                                rebasing: out[(needed.lowerBound - wanted.lowerBound)..<(needed.upperBound - wanted.lowerBound)]),
                                dictionary: dictionary)
                        }
                    }
                    whole = [UInt8](repeating: 0, count: frame.holds.count)
                    guard whole.withUnsafeMutableBytes({ codec.decompress(input, into: $0, dictionary: dictionary) }) else { return false }
                    let from = needed.lowerBound - frame.holds.lowerBound
                    output.replaceSubrange((needed.lowerBound - wanted.lowerBound)..<(needed.upperBound - wanted.lowerBound),
                                           with: whole[from..<from + needed.count])
                    return true
                }
                guard decompressed else { throw .invalidData("raw mail \(raw) does not decompress (frame at byte \(frame.holds.lowerBound))") }
            }
            return true
        }
        return done == nil ? nil : output
    }

    /// Makes `raw_text(raw, start, length)` callable from SQL on `handle`: the text of `length`
    /// bytes of raw message `raw` from `start`, however it is kept, with its line ends made LF
    /// (`LineEnds`); NULL when it is gone. What `Schema.body(of:)` reads a body kept in its raw
    /// mail with.
    static func registerRawText(on handle: OpaquePointer, for database: Database) -> Int32 {
        sqlite3_create_function_v2(
            handle, "raw_text", 3, SQLITE_UTF8, Unmanaged.passUnretained(database).toOpaque(),
            { context, count, arguments in
                guard count == 3, let arguments, let owner = sqlite3_user_data(context),
                      let rawArgument = arguments[0], let startArgument = arguments[1], let lengthArgument = arguments[2],
                      sqlite3_value_type(rawArgument) == SQLITE_INTEGER else {
                    sqlite3_result_null(context)
                    return
                }
                let database = Unmanaged<Database>.fromOpaque(owner).takeUnretainedValue()
                let raw = sqlite3_value_int64(rawArgument)
                let start = Int(sqlite3_value_int64(startArgument))
                let length = Int(sqlite3_value_int64(lengthArgument))
                do {
                    guard let bytes = try database.rawBytes(raw, at: start, count: length).map(LineEnds.text(of:)) else {
                        sqlite3_result_null(context)
                        return
                    }
                    guard !bytes.isEmpty else {
                        sqlite3_result_text(context, "", 0, mailroom_sqlite_transient())
                        return
                    }
                    bytes.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) { characters in
                            sqlite3_result_text(context, characters.baseAddress, Int32(characters.count), mailroom_sqlite_transient())
                        }
                    }
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                }
            },
            nil, nil, nil)
    }
}

extension Transaction {
    /// Records how raw message `raw` is packed (a row written again replaces the last).
    func storePacking(_ packing: RawPacking, of raw: Int64) throws(StoreError) {
        try run("INSERT OR REPLACE INTO raw_packing (id, length, sha256, dictionary, frames) VALUES (?, ?, ?, ?, ?)", [
            .integer(raw), .integer(Int64(packing.length)), .blob(packing.sha256), .optional(packing.dictionary),
            packing.storedFrames.map { .blob($0) } ?? .null,
        ])
    }

    /// Puts `blob` in place of raw message `raw`'s bytes, packed as `packing`, when `unless`
    /// (SQL over `r`, the row) does not hold: false when the row is gone or it held.
    func replaceRaw(_ raw: Int64, with blob: [UInt8], packing: RawPacking, unless: String) throws(StoreError) -> Bool {
        let large = blob.count > Self.copiedRawBytes
        try run("UPDATE raw_mail AS r SET bytes = \(large ? "zeroblob(?)" : "?") WHERE id = ? AND NOT (\(unless))",
                [large ? .integer(Int64(blob.count)) : .blob(blob), .integer(raw)])
        guard database.changes == 1 else { return false }
        if large { try database.writeBlob(table: "raw_mail", column: "bytes", row: raw, blob) }
        try storePacking(packing, of: raw)
        return true
    }
}

extension Reader {
    /// Raw message `raw` decompressed and checked against its recorded length and SHA-256:
    /// nil when it is whole (or kept as it came), else what is wrong.
    func rawProblem(_ raw: Int64) -> String? {
        do {
            guard let packing = try database.packing(ofRaw: raw) else { return nil }
            guard let bytes = try database.rawBytes(raw) else { return "raw mail \(raw) is gone" }
            guard packing.describes(bytes) else {
                return "raw mail \(raw) decompresses to other bytes than were stored"
            }
            return nil
        } catch {
            return "raw mail \(raw) does not decompress: \(error)"
        }
    }
}
