#if canImport(Glibc)
import Glibc
#endif

/// One message file of a Maildir, with what its name says about it.
public struct MaildirEntry: Sendable, Equatable {
    public var path: String
    /// In `new`, or in `cur` without the S (seen) flag.
    public var isUnread: Bool
    /// The F flag.
    public var isFlagged: Bool
    /// When the file was delivered (its modification time), for mail without a Date.
    public var deliveredAt: Int64
}

/// Lists a Maildir's messages: the files of `cur` and `new` (names starting with a dot are
/// skipped, and `tmp` holds deliveries not yet finished), oldest delivery first.
public enum Maildir {
    /// Whether `path` is a Maildir: a folder with `cur` and `new` in it.
    public static func isMaildir(_ path: String) -> Bool {
        isFolder(path + "/cur") && isFolder(path + "/new")
    }

    public static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// A file of `cur` or `new` that is not taken as a message, and why.
    public struct Skipped: Error, Sendable, Equatable {
        public var path: String
        public var reason: String
    }

    /// The messages, and the files passed over, or nil when a folder cannot be read.
    ///
    /// Only regular files are messages: a symbolic link is never followed (it could name any file
    /// the importing user can read, such as `/etc/passwd` or a key, and make a message of it),
    /// nor is a folder, a pipe or a device read.
    public static func listing(at path: String) -> (entries: [MaildirEntry], skipped: [Skipped])? {
        var all: [MaildirEntry] = []
        var skipped: [Skipped] = []
        for sub in ["cur", "new"] {
            // `cur` or `new` itself may be a link to another folder (`cur -> /etc`): opened
            // without following one, it is passed over as a file would be.
            let descriptor = open(path + "/" + sub, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)
            guard descriptor >= 0 else {
                guard errno == ELOOP || errno == ENOTDIR else { return nil }
                skipped.append(Skipped(path: path + "/" + sub, reason: "a symbolic link"))
                continue
            }
            guard let folder = fdopendir(descriptor) else {
                close(descriptor)
                return nil
            }
            defer { closedir(folder) }
            while let item = readdir(folder) {
                let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                let file = path + "/" + sub + "/" + name
                var info = stat()
                guard lstat(file, &info) == 0 else {
                    skipped.append(Skipped(path: file, reason: String(cString: strerror(errno))))
                    continue
                }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    skipped.append(Skipped(path: file, reason: Self.kind(of: info.st_mode)))
                    continue
                }
                // Flags follow ":2," (or "!2," where a colon cannot be in a name), in ASCII order.
                let flags = Self.flags(in: name)
                all.append(MaildirEntry(
                    path: file, isUnread: sub == "new" || !flags.contains("S"), isFlagged: flags.contains("F"),
                    deliveredAt: Int64(info.st_mtim.tv_sec)))
            }
        }
        // Names start with the delivery time in seconds; ties keep a stable order by name.
        return (all.sorted { ($0.deliveredAt, $0.path) < ($1.deliveredAt, $1.path) }, skipped.sorted { $0.path < $1.path })
    }

    /// The bytes of a message file, opened without following a symbolic link and read only when
    /// it is a regular file: the file may have been swapped for a link since it was listed.
    public static func contents(of path: String) -> Result<[UInt8], Skipped> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "a symbolic link" : String(cString: strerror(errno))
            return .failure(Skipped(path: path, reason: reason))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(Skipped(path: path, reason: String(cString: strerror(errno)))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(Skipped(path: path, reason: kind(of: info.st_mode))) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .failure(Skipped(path: path, reason: String(cString: strerror(errno)))) }
            if count == 0 { return .success(bytes) }
            bytes += chunk[0..<count]
        }
    }

    /// What a file that is not a regular file is, in words.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a folder"
        case S_IFIFO: "a pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// The letters after ":2," (or "!2,", where a colon cannot be in a name).
    static func flags(in name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count >= 3 else { return "" }
        for index in stride(from: bytes.count - 3, through: 0, by: -1)
        where (bytes[index] == UInt8(ascii: ":") || bytes[index] == UInt8(ascii: "!"))
            && bytes[index + 1] == UInt8(ascii: "2") && bytes[index + 2] == UInt8(ascii: ",") {
            return String(decoding: bytes[(index + 3)...], as: UTF8.self)
        }
        return ""
    }
}
