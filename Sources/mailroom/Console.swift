import Glibc

/// Unbuffered output, so lines from the log, the banner and errors keep their order in a pipe.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }
    static func error(_ line: String) { write("mailroom: " + line + "\n", to: STDERR_FILENO) }

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
