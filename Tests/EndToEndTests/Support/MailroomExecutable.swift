import Glibc

/// Finds the built `mailroom` program that the process tests launch.
enum MailroomExecutable {
    /// `MAILROOM_BIN` if set; else the `mailroom` built beside this test bundle (same build, same
    /// sources); else `<package root>/.build/debug/mailroom`.
    static func path() throws -> String {
        if let path = getenv("MAILROOM_BIN").map({ String(cString: $0) }), !path.isEmpty {
            guard isExecutable(path) else {
                throw TestFailure("MAILROOM_BIN is \(path), which is not an executable file")
            }
            return path
        }
        let candidates = [besideTestBundle, PackageLocation.root + "/.build/debug/mailroom"].compactMap { $0 }
        guard let found = candidates.first(where: isExecutable) else {
            throw TestFailure(
                "cannot find the mailroom executable (looked at \(candidates.joined(separator: ", "))): "
                    + "run `swift build` first, or set MAILROOM_BIN to its path")
        }
        return found
    }

    private static var besideTestBundle: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let runner = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = runner.lastIndex(of: "/") else { return nil }
        return runner[..<slash] + "/mailroom"
    }

    private static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
