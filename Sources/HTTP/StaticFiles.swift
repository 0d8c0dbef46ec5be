#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Serves the files of one folder, and nothing outside it, from memory: each file is read once
/// and again only when its size or modification time changes, and its answers (200 and 304) are
/// made when it is read, so serving it again is a lookup.
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

    /// The response for a request path such as `/style.css`, or nil when no such file exists;
    /// `304 Not Modified` when `ifNoneMatch` names the file's current ETag, or, without an
    /// `ifNoneMatch`, when the file has not changed since the date `ifModifiedSince` gives
    /// (RFC 9110 13.1.3; a date that cannot be read is ignored). Both are prepared (see
    /// `Response.prepared()`).
    public func response(for path: String, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) -> Response? {
        guard let file = cache.file(path, load: { known in load(path, unless: known) }) else { return nil }
        if let ifNoneMatch {
            return ETag.ifNoneMatch(ifNoneMatch, matches: file.etag) ? file.notModified : file.ok
        }
        if let ifModifiedSince, let since = HTTPDate.seconds(from: ifModifiedSince), Int64(file.modified / 1_000_000_000) <= since {
            return file.notModified
        }
        return file.ok
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
        let etag = "\"" + Self.fingerprint(bytes) + "\""
        var fields = Headers()
        fields.add("Content-Type", Self.contentType(for: relative))
        fields.add("Cache-Control", "public, max-age=300")
        fields.add("ETag", etag)
        fields.add("Last-Modified", HTTPDate.string(Int64(info.st_mtim.tv_sec)))
        for field in headers { fields.add(field.name, field.value) }
        return File(
            ok: Response(status: .ok, headers: fields, body: bytes).prepared(),
            notModified: Response(status: .notModified, headers: fields).prepared(),
            etag: etag, size: size, modified: modified)
    }

    struct File: Sendable {
        let ok: Response
        let notModified: Response
        let etag: String
        let size: Int
        let modified: Int
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

        init(recheckSeconds: Int) {
            self.recheckSeconds = recheckSeconds
        }

        /// The file for `path`, from memory while it was confirmed less than `recheckSeconds`
        /// ago; otherwise `load` confirms or replaces the copy in memory (or finds it gone).
        func file(_ path: String, load: (File?) -> File?) -> File? {
            let now = Cache.seconds()
            let known = entries.withLock { $0[path] }
            if let known, now < known.checked + recheckSeconds { return known.file }
            let file = load(known?.file)
            entries.withLock { $0[path] = file.map { Entry(file: $0, checked: now) } }
            return file
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
