#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Serves the files of one folder, and nothing outside it, from memory: each file is read once
/// and again only when its size or modification time changes.
public struct StaticFiles: Sendable {
    public let root: String
    private let cache: Cache

    /// `recheckSeconds`: how long a file in memory is served before `stat` is asked again.
    public init(root: String, recheckSeconds: Int = 1) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.cache = Cache(recheckSeconds: recheckSeconds)
    }

    /// The response for a request path such as `/style.css`, or nil when no such file exists;
    /// `304 Not Modified` when `ifNoneMatch` names the file's current ETag.
    public func response(for path: String, ifNoneMatch: String? = nil) -> Response? {
        guard let relative = Self.safeRelativePath(path), let file = cache.file(root + "/" + relative) else { return nil }
        var headers = Headers()
        headers.add("Content-Type", Self.contentType(for: relative))
        headers.add("Cache-Control", "public, max-age=300")
        headers.add("ETag", file.etag)
        headers.add("Last-Modified", file.lastModified)
        if ETag.ifNoneMatch(ifNoneMatch, matches: file.etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: file.bytes)
    }

    struct File: Sendable {
        let bytes: [UInt8]
        let etag: String
        let lastModified: String
        let size: Int
        let modified: Int
        /// When `stat` last confirmed the copy in memory (seconds, monotonic).
        var checked: Int
    }

    final class Cache: Sendable {
        private let files = Mutex<[String: File]>([:])
        private let recheckSeconds: Int

        init(recheckSeconds: Int) {
            self.recheckSeconds = recheckSeconds
        }

        /// The file at `path`, from memory while `stat` says it is unchanged; `stat` is asked at
        /// most once per `recheckSeconds` per file.
        func file(_ path: String) -> File? {
            let now = Cache.seconds()
            if let known = files.withLock({ $0[path] }), now < known.checked + recheckSeconds { return known }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            let size = Int(info.st_size)
            let modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
            if var known = files.withLock({ $0[path] }), known.size == size, known.modified == modified {
                known.checked = now
                files.withLock { [known] in $0[path] = known }
                return known
            }
            guard let bytes = StaticFiles.readFile(path) else { return nil }
            let file = File(
                bytes: bytes, etag: "\"" + StaticFiles.fingerprint(bytes) + "\"",
                lastModified: HTTPDate.string(Int64(info.st_mtim.tv_sec)), size: size, modified: modified, checked: now)
            files.withLock { $0[path] = file }
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
