import Glibc

/// Where an installed Mailroom keeps its files, found from the executable's own path:
/// PREFIX/bin/mailroom beside PREFIX/share/mailroom.
enum InstalledFiles {
    /// PREFIX/share/mailroom/Public, or nil when the executable's path cannot be read.
    static func publicFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = executable.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let prefix = parts.dropLast(2).joined(separator: "/")
        return prefix + "/share/mailroom/Public"
    }
}
