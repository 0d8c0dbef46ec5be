#if canImport(Glibc)
import Glibc
#endif

/// Serves the files of one folder, and nothing outside it.
public struct StaticFiles: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// The response for a request path such as `/style.css`, or nil when no such file exists.
    public func response(for path: String) -> Response? {
        guard let relative = Self.safeRelativePath(path),
              let bytes = Self.readFile(root + "/" + relative)
        else { return nil }
        var headers = Headers()
        headers.add("Content-Type", Self.contentType(for: relative))
        headers.add("Cache-Control", "public, max-age=300")
        return Response(status: .ok, headers: headers, body: bytes)
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
