import CivilDate
import Glibc
import HTTP
import MailroomService

/// How log lines are written: words for people, or one JSON object a line for a collector.
public enum LogFormat: String, Sendable {
    case text, json
}

/// One line per request and per SMTP session on standard output, and the count of responses by
/// status. No line holds a message's content or a password.
struct AccessLog: Sendable {
    let isEnabled: Bool
    var format: LogFormat = .text
    let metrics: Metrics

    /// A line that is printed even when request logging is off.
    func notice(_ line: String) {
        emit(format == .json ? LogLine.json([("time", Clock.timestamp()), ("level", "info"), ("message", line)]) : line)
    }

    func record(peer: String, method: String, target: String, status: Int, bytes: Int, started: Clock.Instant) {
        metrics.countResponse(status: status)
        guard isEnabled else { return }
        let micros = Clock.now.microseconds(since: started)
        let millis = String(format3: Double(micros) / 1000)
        // A request target may hold anything; keep the line one line.
        let safeTarget = String(target.map { $0.isNewline || $0 == " " ? "_" : $0 }.prefix(300))
        switch format {
        case .text:
            emit("\(Clock.timestamp()) \(peer) \(method) \(safeTarget) \(status) \(bytes)B \(millis)ms")
        case .json:
            emit(LogLine.json([
                ("time", Clock.timestamp()), ("level", status >= 500 ? "error" : "info"), ("event", "request"),
                ("peer", peer), ("method", method), ("target", safeTarget), ("status", status), ("bytes", bytes),
                ("ms", Double(micros) / 1000),
            ]))
        }
    }

    /// The end of an SMTP session: who, how long, how many messages stored and refused, and why
    /// it ended.
    /// `refusals` counts the session's refusing replies by code (a 535 for a wrong login, a 530
    /// for mail before one, a 552 for a message too large), so a failed login is seen as one.
    func session(peer: String, started: Clock.Instant, stored: Int, refused: Int, ending: String, refusals: [Int: Int] = [:]) {
        guard isEnabled else { return }
        let seconds = Double(Clock.now.microseconds(since: started)) / 1_000_000
        let codes = refusals.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        switch format {
        case .text:
            emit("\(Clock.timestamp()) \(peer) SMTP session \(String(format3: seconds))s: \(stored) stored, \(refused) refused, \(ending)"
                + (codes.isEmpty ? "" : "; refusals: \(codes)"))
        case .json:
            emit(LogLine.json([
                ("time", Clock.timestamp()), ("level", "info"), ("event", "smtp-session"), ("peer", peer),
                ("seconds", seconds), ("stored", stored), ("refused", refused), ("ending", ending), ("refusals", codes),
            ]))
        }
    }

    /// One write(2) per line keeps lines whole when several loops log at once. A text line is
    /// made visible here, where every line passes, so no field a client sent can end it early
    /// or steer the terminal; a JSON line's encoder has escaped its strings already.
    private func emit(_ line: String) {
        let line = format == .json ? line : LogLine.visible(line)
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}

/// A log line as one JSON object, keys in the order given, or as text with its controls made visible.
public enum LogLine {
    /// Now, in UTC to the second, as every log line starts.
    public static func timestamp() -> String { Clock.timestamp() }

    /// `text` with every control character (C0, DEL and C1) written as an escape that shows:
    /// `\r`, `\n`, `\t`, `\x1b`, `\u{9b}`. A client's bytes in a log line could otherwise start a
    /// forged line (LF), overwrite the start of this one on a terminal (CR), or send terminal
    /// commands (ESC, and CSI as U+009B). With `keepingLineBreaks`, LF stays: for messages of our
    /// own that span lines, such as the help text.
    public static func visible(_ text: String, keepingLineBreaks: Bool = false) -> String {
        // The common line has none: leave it as it is. 0xC2 leads the UTF-8 form of every C1 control.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepingLineBreaks: out.append(scalar)
            case 0x0A: out.append(contentsOf: #"\n"#.unicodeScalars)
            case 0x0D: out.append(contentsOf: #"\r"#.unicodeScalars)
            case 0x09: out.append(contentsOf: #"\t"#.unicodeScalars)
            case 0x00..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: (#"\x"# + (hex.count == 1 ? "0" : "") + hex).unicodeScalars)
            case 0x80...0x9F:
                out.append(contentsOf: #"\u{\#(String(scalar.value, radix: 16))}"#.unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    public static func json(_ fields: [(String, any Sendable)]) -> String {
        JSON.object(fields.map { (key, value) -> (String, JSON) in
            switch value {
            case let number as Int: (key, .int(number))
            case let number as Double: (key, .fraction(number))
            case let flag as Bool: (key, .bool(flag))
            default: (key, .string(String(describing: value)))
            }
        }).text
    }
}

/// Monotonic time for durations and wall time for log stamps.
enum Clock {
    struct Instant {
        let nanoseconds: UInt64

        func microseconds(since start: Instant) -> UInt64 {
            (nanoseconds &- start.nanoseconds) / 1000
        }
    }

    static var now: Instant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Instant(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    /// UTC time like `2026-11-29T11:50:00Z`.
    static func timestamp() -> String {
        UTCTime(secondsSinceEpoch: Int64(Glibc.time(nil))).iso8601
    }
}

extension String {
    /// A number with three decimals, without Foundation.
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        self = "\(thousandths / 1000).\(padded)"
    }
}
