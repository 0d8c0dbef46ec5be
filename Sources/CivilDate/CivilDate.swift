/// A day of the proleptic Gregorian calendar, in UTC, counted to and from 1970-01-01.
public struct CivilDate: Hashable, Sendable, Comparable {
    public var year: Int64
    /// 1 (January) to 12.
    public var month: Int
    /// 1 to the month's last day.
    public var day: Int

    /// The day as given; `isValid` says whether the calendar has it.
    public init(year: Int64, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `days` days after 1970-01-01 (before it, when negative).
    ///
    /// Howard Hinnant's `civil_from_days`: the year is shifted to start on March 1, so that a
    /// leap day ends it, and counted in eras of 400 years (146,097 days), which repeat exactly.
    public init(daysSinceEpoch days: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this day (negative before it): Hinnant's `days_from_civil`, the
    /// inverse of `init(daysSinceEpoch:)`.
    public var daysSinceEpoch: Int64 {
        let month = Int64(month)
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 00:00 UTC of this day in seconds since the epoch.
    public var startInSeconds: Int64 { daysSinceEpoch * 86_400 }

    /// Whether the calendar has this day: a month of 1...12 and a day within it.
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
    }

    /// 0 for Sunday to 6 for Saturday.
    public var weekday: Int { Int(((daysSinceEpoch % 7) + 7 + 4) % 7) }  // 1970-01-01 was a Thursday

    public static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1...12) of `year`.
    public static func daysIn(month: Int, year: Int64) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func < (left: CivilDate, right: CivilDate) -> Bool {
        (left.year, left.month, left.day) < (right.year, right.month, right.day)
    }

    /// English three-letter names, as mail, mbox postmarks and HTTP dates write them.
    public static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// English three-letter names from Sunday, as mail, mbox postmarks and HTTP dates write them.
    public static let weekdayAbbreviations = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
}
