/// The two ways Mailroom writes a moment as text outside HTTP's own date.
extension UTCTime {
    /// RFC 3339 in UTC to the second, as logs and `<time datetime>` take it: `2026-12-03T04:58:34Z`.
    public var iso8601: String {
        "\(Self.padded(year, 4))-\(Self.padded(Int64(month), 2))-\(Self.padded(Int64(day), 2))T"
            + "\(Self.padded(Int64(hour), 2)):\(Self.padded(Int64(minute), 2)):\(Self.padded(Int64(second), 2))Z"
    }

    /// A mail Date header (RFC 5322 §3.3) in UTC: `Thu, 03 Dec 2026 04:58:34 +0000`.
    public var mailDate: String {
        "\(CivilDate.weekdayAbbreviations[weekday]), \(Self.padded(Int64(day), 2)) "
            + "\(CivilDate.monthAbbreviations[month - 1]) \(Self.padded(year, 4)) "
            + "\(Self.padded(Int64(hour), 2)):\(Self.padded(Int64(minute), 2)):\(Self.padded(Int64(second), 2)) +0000"
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
