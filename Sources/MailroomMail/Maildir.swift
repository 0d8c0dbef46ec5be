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

    /// The messages, or nil when a folder cannot be read.
    public static func entries(at path: String) -> [MaildirEntry]? {
        var all: [MaildirEntry] = []
        for sub in ["cur", "new"] {
            guard let folder = opendir(path + "/" + sub) else { return nil }
            defer { closedir(folder) }
            while let item = readdir(folder) {
                let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                let file = path + "/" + sub + "/" + name
                var info = stat()
                guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                // Flags follow ":2," (or "!2," where a colon cannot be in a name), in ASCII order.
                let flags = Self.flags(in: name)
                all.append(MaildirEntry(
                    path: file, isUnread: sub == "new" || !flags.contains("S"), isFlagged: flags.contains("F"),
                    deliveredAt: Int64(info.st_mtim.tv_sec)))
            }
        }
        // Names start with the delivery time in seconds; ties keep a stable order by name.
        return all.sorted { ($0.deliveredAt, $0.path) < ($1.deliveredAt, $1.path) }
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
