import Glibc

/// Postfix's smtp-sink on a free port of 127.0.0.1, dumping each message it takes to a file of
/// its own in a fresh directory (`-d DIR/%M.`). Its options make it refuse on cue: `-f RCPT`
/// (5xx), `-r .` (4xx after the text), `-q .` (hang up after the text), `-Q MAIL` (421).
final class SMTPSink {
    static let executable = "/usr/sbin/smtp-sink"
    let port: Int
    let directory: String
    private let process: ChildProcess

    init(options: [String] = []) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw TestFailure("\(Self.executable) is missing: apt-get install postfix")
        }
        var template = Array("/tmp/mailroom-smtp-sink-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(errno)") }
        directory = String(cString: made)
        // As root it must be told whose privileges to keep; root keeps the dump writable.
        let user = geteuid() == 0 ? ["-u", "root"] : []
        // The free port may be taken by another test before smtp-sink binds it: then it says
        // so and ends, and another port is tried.
        var trouble = ""
        for _ in 0..<3 {
            let port = try FreePort.pick()
            let process = try ChildProcess(
                executable: Self.executable,
                arguments: user + options + ["-d", directory + "/%M.", "127.0.0.1:\(port)", "100"])
            if try Self.waitUntilListening(process, on: port, within: 20) {
                self.port = port
                self.process = process
                return
            }
            process.send(SIGKILL)
            _ = try? process.waitForExit(within: 10)
            trouble = process.errorText
        }
        rmdir(directory)
        throw TestFailure("smtp-sink did not start: \(trouble)")
    }

    deinit {
        process.send(SIGTERM)
        _ = try? process.waitForExit(within: 10)
        for name in dumpNames() { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    /// The dumps written so far, by file name.
    func dumpNames() -> [String] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The one message dumped, once smtp-sink has written it up to `ending`.
    func onlyDump(endingWith ending: String, within seconds: Double = 20) throws -> String {
        let deadline = Deadline(seconds)
        while true {
            let names = dumpNames()
            if names.count == 1, let text = Self.read(directory + "/" + names[0]), text.hasSuffix(ending) {
                return text
            }
            guard !deadline.hasPassed else {
                throw TestFailure("no single finished dump within \(seconds) s; files: \(names)")
            }
            Self.pause()
        }
    }

    /// Whether smtp-sink listens before `seconds` have passed; false as soon as it has ended.
    private static func waitUntilListening(_ process: ChildProcess, on port: Int, within seconds: Double) throws -> Bool {
        let deadline = Deadline(seconds)
        while !deadline.hasPassed {
            if answers(port: port) { return true }
            // Reading its output is the pause between two tries, and tells when it has ended.
            _ = try process.output(after: 0.01)
            if process.errorText.contains("fatal") { return false }
        }
        return false
    }

    /// Whether something accepts a connection on 127.0.0.1:`port`.
    private static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A short wait between two looks at a condition that no event announces.
    private static func pause() {
        _ = poll(nil, 0, 10)
    }

    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
