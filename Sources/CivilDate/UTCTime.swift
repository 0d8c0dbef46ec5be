/// A moment in UTC broken down into its day and its time of day, as `gmtime_r` does, without
/// libc: seconds since the epoch in, year to second and weekday out.
public struct UTCTime: Hashable, Sendable {
    public var date: CivilDate
    /// 0...23.
    public var hour: Int
    /// 0...59.
    public var minute: Int
    /// 0...59 (the epoch's seconds have no leap second).
    public var second: Int

    /// The moment `seconds` after 1970-01-01 00:00:00 UTC (before it, when negative).
    public init(secondsSinceEpoch seconds: Int64) {
        // Rounded down, so a second before the epoch is 23:59:59 of the day before.
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        date = CivilDate(daysSinceEpoch: days)
        hour = secondOfDay / 3_600
        minute = secondOfDay % 3_600 / 60
        second = secondOfDay % 60
    }

    public var year: Int64 { date.year }
    public var month: Int { date.month }
    public var day: Int { date.day }
    /// 0 for Sunday to 6 for Saturday.
    public var weekday: Int { date.weekday }

    /// Seconds since the epoch: the inverse of `init(secondsSinceEpoch:)`.
    public var secondsSinceEpoch: Int64 {
        date.startInSeconds + Int64(hour * 3_600 + minute * 60 + second)
    }
}
