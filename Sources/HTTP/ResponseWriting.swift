extension Response {
    /// The response as HTTP/1.1 bytes. `Content-Length` comes from the body (a HEAD answer keeps
    /// the length its body would have, without the body); `Connection: close` when the
    /// connection ends after it.
    public func serialized(keepAlive: Bool, echoKeepAlive: Bool = false, includeBody: Bool, date: String) -> [UInt8] {
        var bytes = head(keepAlive: keepAlive, echoKeepAlive: echoKeepAlive, date: date)
        if includeBody && hasBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// Whether the status allows a body at all (304 and 204 do not).
    public var hasBody: Bool { status.code != 304 && status.code != 204 }

    /// The status line and header fields with the blank line after them: `serialized` without
    /// the body, for a server that writes the body from where it already is.
    public func head(keepAlive: Bool, echoKeepAlive: Bool = false, date: String) -> [UInt8] {
        var bytes = preparedHead ?? fieldBytes(reserving: 64)
        bytes.append(contentsOf: "Date: ".utf8)
        bytes.append(contentsOf: date.utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        if !keepAlive {
            bytes.append(contentsOf: "Connection: close\r\n".utf8)
        } else if echoKeepAlive {
            bytes.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        return bytes
    }
}

extension Response {
    /// The status line, the fields and Content-Length: the part of the head that stays the same
    /// each time the response is sent.
    func fieldBytes(reserving extra: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512 + extra)
        bytes.append(contentsOf: "HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8)
        for field in headers {
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        if hasBody {
            bytes.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        return bytes
    }
}

/// The `Date` header's form: `Sun, 29 Nov 2026 12:00:00 GMT`.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since the epoch, in UTC, without Foundation.
    public static func string(_ seconds: Int64) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - day * 86_400
        let (year, month, dayOfMonth) = civil(fromDays: day)
        let weekday = Int((day % 7 + 7 + 4) % 7)  // 1970-01-01 was a Thursday.
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[weekday]), \(two(dayOfMonth)) \(months[Int(month) - 1]) \(year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay % 3_600 / 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Howard Hinnant's days-to-civil algorithm.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
