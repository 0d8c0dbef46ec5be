import CivilDate
#if canImport(Glibc)
import Glibc
#endif

/// Dates and previews as the list shows them.
enum Formatting {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "14:05" for today, "Nov 28" for this year, "Nov 28, 2025" before that, in the machine's
    /// time zone (`TZ`, or `--time-zone`; UTC when neither says otherwise).
    static func shortDate(_ seconds: Int64, now: Int64) -> String {
        let date = local(seconds)
        let today = local(now)
        if date.tm_year == today.tm_year && date.tm_yday == today.tm_yday {
            return "\(two(date.tm_hour)):\(two(date.tm_min))"
        }
        let day = "\(months[Int(date.tm_mon)]) \(date.tm_mday)"
        return date.tm_year == today.tm_year ? day : "\(day), \(date.tm_year + 1900)"
    }

    /// "123,456": a count with thousands separated.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// "512 bytes", "12 KB", "3.4 MB": a size as people read it (1 KB = 1,024 bytes).
    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1_024 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        if bytes < 1_024 * 1_024 { return "\((bytes + 512) / 1_024) KB" }
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// "740 bytes", "2.1 KB", "48 KB", "3.4 MB": a message's size in a list row, one decimal
    /// while the number is under ten, so small mails still differ (1 KB = 1,024 bytes).
    static func size(_ bytes: Int) -> String {
        if bytes < 1_024 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        for (unit, scale) in [("KB", 1_024), ("MB", 1_048_576), ("GB", 1_073_741_824)] {
            let tenths = (bytes * 10 + scale / 2) / scale
            if tenths < 100 { return "\(tenths / 10).\(tenths % 10) \(unit)" }
            let whole = (bytes + scale / 2) / scale
            if whole < 1_024 || unit == "GB" { return "\(whole) \(unit)" }
        }
        return "\(bytes) bytes"
    }

    /// "Nov 28, 2026 at 14:05 UTC" (or "at 15:05 CET"), for the message page: the machine's
    /// time zone, named.
    static func longDate(_ seconds: Int64) -> String {
        let date = local(seconds)
        let zone = date.tm_zone.map { String(cString: $0) } ?? "UTC"
        return "\(months[Int(date.tm_mon)]) \(date.tm_mday), \(date.tm_year + 1900) at "
            + "\(two(date.tm_hour)):\(two(date.tm_min)) \(zone)"
    }

    /// The machine-readable form for `<time datetime>`.
    static func iso8601(_ seconds: Int64) -> String {
        UTCTime(secondsSinceEpoch: seconds).iso8601
    }

    /// The start of a body on one line, cut at a word near `limit` bytes of UTF-8.
    ///
    /// Works on bytes and stops early, so a 10,000-character body costs no more than a short one.
    static func preview(_ body: String, limit: Int = 120) -> String {
        let start = collapsed(body, limit: limit)
        var output = start.bytes
        guard start.truncated else { return String(decoding: output, as: UTF8.self) }
        // Cut at the last space if there is one, else at the last whole UTF-8 sequence.
        if let space = output.lastIndex(of: 0x20) {
            output.removeSubrange(space...)
        } else {
            while let last = output.last, last & 0xC0 == 0x80 { output.removeLast() }
            if let last = output.last, last >= 0xC0 { output.removeLast() }
        }
        return String(decoding: output, as: UTF8.self) + "…"
    }

    /// The start of `body` as UTF-8 with each run of white space one space, at most `limit`
    /// bytes and a space more (possibly ending inside a character), and whether more followed. Works on bytes
    /// and stops early, so a long body costs no more than a short one.
    static func collapsed(_ body: String, limit: Int) -> (bytes: [UInt8], truncated: Bool) {
        var output: [UInt8] = []
        output.reserveCapacity(limit + 4)
        var pendingSpace = false
        var truncated = false
        var body = body
        body.withUTF8 { bytes in
            for byte in bytes {
                if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    pendingSpace = !output.isEmpty
                    continue
                }
                if output.count >= limit {
                    truncated = true
                    return
                }
                if pendingSpace {
                    output.append(0x20)
                    pendingSpace = false
                }
                output.append(byte)
            }
        }
        return (output, truncated)
    }

    /// In the process's time zone, as `TZ` (read once, at start, by `tzset`) says.
    private static func local(_ seconds: Int64) -> tm {
        var time = time_t(seconds)
        var result = tm()
        localtime_r(&time, &result)
        return result
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
