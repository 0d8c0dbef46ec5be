#if canImport(Glibc)
import Glibc
#endif
import Compression
import Synchronization

/// Serves the files of one folder, and nothing outside it, from memory: each file is read once
/// and again only when its size or modification time changes, and its answers (200 and 304,
/// plain and, for text that shrinks, Brotli and gzip) are made when it is read, so serving it
/// again is a lookup.
public struct StaticFiles: Sendable {
    public let root: String
    /// Fields every answer carries besides its own (an application's security headers).
    public let headers: Headers
    private let cache: Cache

    /// `recheckSeconds`: how long a file in memory is served before `stat` is asked again.
    public init(root: String, recheckSeconds: Int = 1, headers: Headers = Headers()) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.headers = headers
        self.cache = Cache(recheckSeconds: recheckSeconds)
    }

    /// The response for a request path such as `/style.css`, or nil when no such file exists:
    /// compressed when `acceptEncoding` accepts Brotli or gzip and the file has such a variant;
    /// `304 Not Modified` when `ifNoneMatch` names that variant's ETag, or, without an
    /// `ifNoneMatch`, when the file has not changed since the date `ifModifiedSince` gives
    /// (RFC 9110 13.1.3; a date that cannot be read is ignored). All are prepared (see
    /// `Response.prepared()`).
    public func response(
        for path: String, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, acceptEncoding: String? = nil
    ) -> Response? {
        guard let (file, checkedUntil) = cache.file(path, load: { known in load(path, unless: known) }) else { return nil }
        let variant = file.variant(for: acceptEncoding)
        let answer: Response
        if let ifNoneMatch {
            answer = ETag.ifNoneMatch(ifNoneMatch, matches: variant.etag) ? variant.notModified : variant.ok
        } else if let ifModifiedSince, let since = HTTPDate.seconds(from: ifModifiedSince),
                  Int64(file.modified / 1_000_000_000) <= since {
            answer = variant.notModified
        } else {
            answer = variant.ok
        }
        // The same request gets the same answer until the copy in memory is checked again.
        return answer.repeating(while: Repeatable { Cache.seconds() < checkedUntil })
    }

    /// The file that `path` names, read from disk unless `known` is still its current copy;
    /// nil when `path` leaves the folder or names no regular file.
    private func load(_ path: String, unless known: File?) -> File? {
        guard let relative = Self.safeRelativePath(path) else { return nil }
        let fullPath = root + "/" + relative
        var info = stat()
        guard stat(fullPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        if let known, known.size == size, known.modified == modified { return known }
        guard let bytes = Self.readFile(fullPath) else { return nil }
        let type = Self.contentType(for: relative)
        let tag = Self.fingerprint(bytes)
        let compressible = Self.isText(type) && bytes.count >= Self.smallestCompressed
        // Kept only when it saves something worth a header: a tenth, and at least 64 bytes.
        func worthIt(_ compressed: [UInt8]?) -> [UInt8]? {
            compressed.flatMap { $0.count + 64 <= bytes.count && $0.count * 10 <= bytes.count * 9 ? $0 : nil }
        }
        let brotli = compressible ? worthIt(Compression.brotli(bytes)) : nil
        let gzip = compressible ? worthIt(Compression.gzip(bytes)) : nil
        let varies = brotli != nil || gzip != nil
        func variant(_ body: [UInt8], coding: String?) -> Variant {
            let etag = "\"" + tag + (coding.map { "-" + $0 } ?? "") + "\""
            var fields = Headers()
            fields.add("Content-Type", type)
            if let coding { fields.add("Content-Encoding", coding) }
            if varies { fields.add("Vary", "Accept-Encoding") }
            fields.add("Cache-Control", "public, max-age=300")
            fields.add("ETag", etag)
            fields.add("Last-Modified", HTTPDate.string(Int64(info.st_mtim.tv_sec)))
            for field in headers { fields.add(field.name, field.value) }
            return Variant(
                ok: Response(status: .ok, headers: fields, body: body).prepared(),
                notModified: Response(status: .notModified, headers: fields).prepared(), etag: etag)
        }
        return File(
            plain: variant(bytes, coding: nil), brotli: brotli.map { variant($0, coding: "br") },
            gzip: gzip.map { variant($0, coding: "gzip") }, size: size, modified: modified)
    }

    /// Smaller files go as they are: compressing them saves less than a packet.
    static let smallestCompressed = 256

    static func isText(_ type: String) -> Bool {
        type.hasPrefix("text/") || type.hasPrefix("image/svg+xml") || type.hasPrefix("application/json")
    }

    /// One representation of a file, its answers made ahead. A class, as `File` is: a lookup
    /// hands out one reference, not a copy of every answer's fields.
    final class Variant: Sendable {
        let ok: Response
        let notModified: Response
        let etag: String

        init(ok: Response, notModified: Response, etag: String) {
            self.ok = ok
            self.notModified = notModified
            self.etag = etag
        }
    }

    final class File: Sendable {
        let plain: Variant
        let brotli: Variant?
        let gzip: Variant?
        let size: Int
        let modified: Int

        init(plain: Variant, brotli: Variant?, gzip: Variant?, size: Int, modified: Int) {
            self.plain = plain
            self.brotli = brotli
            self.gzip = gzip
            self.size = size
            self.modified = modified
        }

        /// The variant a request with `acceptEncoding` gets: Brotli, then gzip, as far as the
        /// client accepts them and they exist; otherwise the plain file.
        func variant(for acceptEncoding: String?) -> Variant {
            guard let acceptEncoding, brotli != nil || gzip != nil else { return plain }
            let accepted = ContentCodings(acceptEncoding)
            if let brotli, accepted.accepts("br") { return brotli }
            if let gzip, accepted.accepts("gzip") { return gzip }
            return plain
        }
    }

    /// Files by request path. Only paths that named a file inside the folder are ever kept.
    final class Cache: Sendable {
        private struct Entry {
            let file: File
            /// When `stat` last confirmed the copy in memory (seconds, monotonic).
            var checked: Int
        }

        private let entries = Mutex<[String: Entry]>([:])
        private let recheckSeconds: Int
        /// Names this cache in each thread's memo, never reused.
        private let serial = Cache.serials.wrappingAdd(1, ordering: .relaxed).newValue
        private static let serials = Atomic<UInt64>(0)

        /// What one thread found here last, by path: each entry is a copy of a shared one,
        /// confirmed at the same time, so it is served exactly as long as the shared one
        /// would be, without the shared lock (`ThreadSlot`).
        private final class Memo {
            var cache: UInt64 = 0
            var entries: [String: Entry] = [:]
        }

        private static let memos = ThreadSlot<Memo>()
        /// A thread's memo holds the files it serves most, not the folder.
        private static let memoEntries = 16

        init(recheckSeconds: Int) {
            self.recheckSeconds = recheckSeconds
        }

        /// The file for `path`, from memory while it was confirmed less than `recheckSeconds`
        /// ago; otherwise `load` confirms or replaces the copy in memory (or finds it gone).
        /// With it, the moment (`seconds()`) from which it is to be confirmed again.
        func file(_ path: String, load: (File?) -> File?) -> (file: File, checkedUntil: Int)? {
            let now = Cache.seconds()
            let memo = Cache.memos.object { Memo() }
            if let memo, memo.cache == serial, let known = memo.entries[path], now < known.checked + recheckSeconds {
                return (known.file, known.checked + recheckSeconds)
            }
            let known = entries.withLock { $0[path] }
            if let known, now < known.checked + recheckSeconds {
                remember(known, for: path, in: memo)
                return (known.file, known.checked + recheckSeconds)
            }
            guard let file = load(known?.file) else {
                entries.withLock { $0[path] = nil }
                return nil
            }
            let entry = Entry(file: file, checked: now)
            entries.withLock { $0[path] = entry }
            remember(entry, for: path, in: memo)
            return (file, now + recheckSeconds)
        }

        /// Only paths that named a file are remembered, as in the shared entries, and at most
        /// `memoEntries` of them.
        private func remember(_ entry: Entry, for path: String, in memo: Memo?) {
            guard let memo else { return }
            if memo.cache != serial || memo.entries.count >= Cache.memoEntries {
                memo.cache = serial
                memo.entries = [:]
            }
            memo.entries[path] = entry
        }

        static func seconds() -> Int {
            var spec = timespec()
            clock_gettime(CLOCK_MONOTONIC, &spec)
            return spec.tv_sec
        }
    }

    /// A hash and the length of the bytes, in hex: changes whenever the file does.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        Fingerprint.hex(bytes) + "-" + String(bytes.count, radix: 16)
    }

    /// Whether `path` names a file inside the folder rather than anything outside it.
    public static func isSafe(_ path: String) -> Bool { safeRelativePath(path) != nil }

    /// A path made only of plain segments (no `..`, `.`, empty, hidden or backslashed parts).
    static func safeRelativePath(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.isEmpty else { return nil }
        for segment in segments {
            guard !segment.isEmpty, !segment.hasPrefix("."), !segment.contains("\\"),
                  !segment.contains("\0")
            else { return nil }
        }
        return segments.joined(separator: "/")
    }

    static func contentType(for path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        case "json": "application/json"
        case "woff2": "font/woff2"
        default: "application/octet-stream"
        }
    }

    /// The bytes of a regular file, or nil for anything else (a folder, a missing file).
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            filled += count
        }
        return bytes
    }
}

/// What an `Accept-Encoding` field accepts (RFC 9110 12.5.3): each coding named with a weight
/// above zero, and, through `*`, those it does not name.
struct ContentCodings {
    private var weights: [String: Double] = [:]
    private var others: Double = 0

    init(_ field: String) {
        for item in field.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingCharacters(in: " \t").lowercased(), !name.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: " \t").lowercased() == "q" {
                    weight = Double(pair[1].trimmingCharacters(in: " \t")) ?? 0
                }
            }
            if name == "*" { others = weight } else { weights[name] = weight }
        }
    }

    func accepts(_ coding: String) -> Bool {
        (weights[coding] ?? (coding == "gzip" ? weights["x-gzip"] : nil) ?? others) > 0
    }
}
