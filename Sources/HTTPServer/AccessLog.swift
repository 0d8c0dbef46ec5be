import Glibc
import HTTP

/// One line per request on standard output, and the count of responses by status.
struct AccessLog: Sendable {
    let isEnabled: Bool
    let metrics: Metrics

    /// A line that is printed even when request logging is off.
    func notice(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    func record(peer: String, method: String, target: String, status: Int, bytes: Int, started: Clock.Instant) {
        metrics.countResponse(status: status)
        guard isEnabled else { return }
        let micros = Clock.now.microseconds(since: started)
        let millis = String(format3: Double(micros) / 1000)
        // A request target may hold anything; keep the line one line.
        let safeTarget = String(target.map { $0.isNewline || $0 == " " ? "_" : $0 }.prefix(300))
        let line = "\(Clock.timestamp()) \(peer) \(method) \(safeTarget) \(status) \(bytes)B \(millis)ms\n"
        // One write(2) per line keeps lines whole when several loops log at once.
        var bytesToWrite = Array(line.utf8)
        bytesToWrite.withUnsafeMutableBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
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
        var seconds = Glibc.time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
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
