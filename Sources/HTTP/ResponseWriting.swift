import CivilDate

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
    /// The head of a response whose body runs until the connection closes (an event stream):
    /// no Content-Length, and `Connection: close`.
    public func streamHead(date: String) -> [UInt8] {
        var bytes = Array("HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8)
        for field in headers where !Headers.sameName(field.name, "Content-Length") {
            bytes.append(contentsOf: "\(field.name): \(field.value)\r\n".utf8)
        }
        bytes.append(contentsOf: "Date: \(date)\r\nConnection: close\r\n\r\n".utf8)
        return bytes
    }

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
            bytes.append(contentsOf: "Content-Length: \(bodyLength)\r\n".utf8)
        }
        return bytes
    }
}

/// The `Date` header's form: `Sun, 29 Nov 2026 12:00:00 GMT`.
public enum HTTPDate {
    /// Formats seconds since the epoch, in UTC, without Foundation.
    public static func string(_ seconds: Int64) -> String {
        let time = UTCTime(secondsSinceEpoch: seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let (weekday, month) = (CivilDate.weekdayAbbreviations[time.weekday], CivilDate.monthAbbreviations[time.month - 1])
        return "\(weekday), \(two(time.day)) \(month) \(time.year) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }

    /// Seconds since the epoch for an HTTP date in any of the three forms RFC 9110 5.6.7 asks a
    /// recipient to read: `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` and
    /// `Sun Nov  6 08:49:37 1994`. Nil for anything else.
    public static func seconds(from text: String) -> Int64? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let day: String, month: String, year: String, time: String
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT":
            (day, month, year, time) = (words[1], words[2], words[3], words[4])
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[2].count == 2, let short = Int64(parts[2]) else { return nil }
            // RFC 850's two-digit year: this one reads 70...99 as 1970...1999 and the rest as 20xx.
            (day, month, year, time) = (parts[0], parts[1], String(short >= 70 ? 1_900 + short : 2_000 + short), words[2])
        case 5 where !words[0].hasSuffix(","):
            (day, month, year, time) = (words[2], words[1], words[4], words[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let monthIndex = CivilDate.monthAbbreviations.firstIndex(of: month), day.count <= 2, year.count == 4, clock.count == 3,
              clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
              let dayOfMonth = Int64(day), let yearNumber = Int64(year),
              let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
              (1...31).contains(dayOfMonth), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = CivilDate(year: yearNumber, month: monthIndex + 1, day: Int(dayOfMonth)).daysSinceEpoch
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }
}
