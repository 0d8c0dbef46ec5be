import Glibc
import MailroomNet

/// Unbuffered output, so lines from the log, the banner and errors keep their order in a pipe.
/// With `--log-format json`, each line is one JSON object with its time and level.
enum Console {
    /// Set once, at start, before any thread is made.
    nonisolated(unsafe) static var format = LogFormat.text

    /// In text, every control but LF is made visible (`LogLine.visible`): lines carry what
    /// clients and files named (a sender, a file name), and our own messages may span lines.
    static func out(_ line: String) {
        write(format == .json ? json("info", line) : LogLine.visible(line, keepingLineBreaks: true) + "\n", to: STDOUT_FILENO)
    }

    /// A refusal or a failure; `warning:` lines are warnings.
    static func error(_ line: String) {
        let level = line.hasPrefix("warning:") ? "warning" : "error"
        write(format == .json ? json(level, line) : "mailroom: " + LogLine.visible(line, keepingLineBreaks: true) + "\n",
              to: STDERR_FILENO)
    }

    private static func json(_ level: String, _ line: String) -> String {
        LogLine.json([("time", LogLine.timestamp()), ("level", level), ("message", line)]) + "\n"
    }

    private static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
