import Glibc
import MailroomMail
import MailroomNet
import Synchronization

/// What an import shows while it runs (on standard error: a line rewritten in place on a
/// terminal, else a line every 10 seconds) and its rate at the end.
final class Progress: Sendable {
    private let total: Int
    private let started: Double
    private let isTerminal = isatty(2) == 1
    /// What the import's two threads (reading and storing) both count.
    private let state: Mutex<State>

    private struct State {
        var lastShown: Double
        var bytes = 0
        var messages = 0
        /// Files passed over, each already reported on its own line.
        var skippedFiles = 0
    }

    var skippedFiles: Int { state.withLock { $0.skippedFiles } }

    init(total: Int) {
        self.total = total
        let now = Progress.seconds()
        started = now
        state = Mutex(State(lastShown: now))
    }

    /// Reports a file that is not imported, on a line of its own, and counts it for the summary.
    func skipped(_ file: Maildir.Skipped) {
        let shown = state.withLock { state in
            state.skippedFiles += 1
            return state.lastShown > started
        }
        if isTerminal && shown { FileHandleLike.writeError("\r\u{1B}[K") }
        // The console keeps LF for messages of its own; a file's name may hold one too.
        Console.error("import: skipped \(LogLine.visible(file.path)): \(file.reason)")
    }

    func read(_ count: Int) {
        state.withLock { $0.bytes += count }
    }

    func stored(_ count: Int) {
        let now = Self.seconds()
        let line: String? = state.withLock { state in
            state.messages += count
            guard now - state.lastShown >= (isTerminal ? 0.5 : 10) else { return nil }
            state.lastShown = now
            return status(state, now)
        }
        if let line { show(line) }
    }

    func finish() {
        if isTerminal && state.withLock({ $0.lastShown }) > started { FileHandleLike.writeError("\r\u{1B}[K") }
    }

    var summary: String { state.withLock { rate($0, Self.seconds()) } }

    private func status(_ state: State, _ now: Double) -> String {
        let percent = total > 0 ? min(100, state.bytes * 100 / total) : 100
        return "import: \(state.messages) messages, \(Self.size(state.bytes)) of \(Self.size(total)) (\(percent)%), \(rate(state, now))"
    }

    private func rate(_ state: State, _ now: Double) -> String {
        let seconds = max(now - started, 0.001)
        let megabytes = Double(state.bytes) / 1_000_000 / seconds
        return "\(Self.size(state.bytes)) in \(Self.oneDecimal(seconds)) s, \(Self.oneDecimal(megabytes)) MB/s"
    }

    private func show(_ line: String) {
        FileHandleLike.writeError(isTerminal ? "\r\u{1B}[K" + line : line + "\n")
    }

    static func size(_ bytes: Int) -> String {
        bytes < 1 << 20 ? "\((bytes + 1_023) >> 10) KiB" : "\(bytes >> 20) MiB"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

enum FileHandleLike {
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
