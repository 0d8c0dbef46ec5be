import Glibc

/// A Python program of a test's own (a peer the client under test talks to), written to a
/// temporary folder and started with `arguments`; it says `listening PORT` once it listens.
/// The folder goes when the peer does.
final class PythonPeer {
    let port: Int
    let process: ChildProcess
    private let directory: String
    private let script: String

    init(named name: String, source: String, arguments: [String]) throws {
        var template = Array("/tmp/mailroom-\(name)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(errno)") }
        directory = String(cString: made)
        script = directory + "/\(name).py"
        guard let file = fopen(script, "w") else { throw TestFailure("cannot write \(script)") }
        fputs(source, file)
        fclose(file)
        process = try ChildProcess(executable: "/usr/bin/python3", arguments: [script] + arguments)
        let line = try process.waitForOutputLine(within: 20) { $0.hasPrefix("listening ") }
        guard let port = Int(line.dropFirst("listening ".count)) else { throw TestFailure("no port in \(line)") }
        self.port = port
    }

    deinit {
        unlink(script)
        rmdir(directory)
    }
}
