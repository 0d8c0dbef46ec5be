import CivilDate
import Testing

/// A moment and how it reads in UTC, checked by hand against `date -u -d @SECONDS`.
struct KnownMoment: Sendable, CustomStringConvertible {
    var seconds: Int64
    var year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// 0 for Sunday.
    var weekday: Int

    var description: String { "@\(seconds)" }
}

@Suite struct CivilDateTests {
    static let moments: [KnownMoment] = [
        KnownMoment(seconds: 0, year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, weekday: 4),
        KnownMoment(seconds: -1, year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59, weekday: 3),
        KnownMoment(seconds: -86_400, year: 1969, month: 12, day: 31, hour: 0, minute: 0, second: 0, weekday: 3),
        KnownMoment(seconds: -86_401, year: 1969, month: 12, day: 30, hour: 23, minute: 59, second: 59, weekday: 2),
        KnownMoment(seconds: 951_782_400, year: 2000, month: 2, day: 29, hour: 0, minute: 0, second: 0, weekday: 2),
        KnownMoment(seconds: 951_868_799, year: 2000, month: 2, day: 29, hour: 23, minute: 59, second: 59, weekday: 2),
        KnownMoment(seconds: 951_868_800, year: 2000, month: 3, day: 1, hour: 0, minute: 0, second: 0, weekday: 3),
        KnownMoment(seconds: 2_147_483_647, year: 2038, month: 1, day: 19, hour: 3, minute: 14, second: 7, weekday: 2),
        KnownMoment(seconds: 2_147_483_648, year: 2038, month: 1, day: 19, hour: 3, minute: 14, second: 8, weekday: 2),
        KnownMoment(seconds: 1_795_996_800, year: 2026, month: 11, day: 30, hour: 0, minute: 0, second: 0, weekday: 1),
        KnownMoment(seconds: 784_111_777, year: 1994, month: 11, day: 6, hour: 8, minute: 49, second: 37, weekday: 0),
        KnownMoment(seconds: 253_402_300_799, year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, weekday: 5),
        KnownMoment(seconds: -62_135_596_800, year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, weekday: 1),
        KnownMoment(seconds: -2_208_988_800, year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0, weekday: 1),
        KnownMoment(seconds: 4_107_542_400, year: 2100, month: 3, day: 1, hour: 0, minute: 0, second: 0, weekday: 1),
    ]

    @Test(arguments: moments)
    func secondsBreakDownAsGmtimeDoes(moment: KnownMoment) {
        let time = UTCTime(secondsSinceEpoch: moment.seconds)
        #expect(time.year == moment.year)
        #expect(time.month == moment.month)
        #expect(time.day == moment.day)
        #expect(time.hour == moment.hour)
        #expect(time.minute == moment.minute)
        #expect(time.second == moment.second)
        #expect(time.weekday == moment.weekday)
        #expect(time.secondsSinceEpoch == moment.seconds)
    }

    @Test(arguments: [
        (CivilDate(year: 1970, month: 1, day: 1), 0),
        (CivilDate(year: 1969, month: 12, day: 31), -1),
        (CivilDate(year: 1968, month: 2, day: 29), -672),
        (CivilDate(year: 2000, month: 2, day: 29), 11_016),
        (CivilDate(year: 2038, month: 1, day: 19), 24_855),
        (CivilDate(year: 9999, month: 12, day: 31), 2_932_896),
        (CivilDate(year: 1, month: 1, day: 1), -719_162),
        (CivilDate(year: 0, month: 3, day: 1), -719_468),
        (CivilDate(year: -1, month: 12, day: 31), -719_529),
    ] as [(CivilDate, Int64)])
    func daysCountFromTheEpoch(date: CivilDate, days: Int64) {
        #expect(date.daysSinceEpoch == days)
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.startInSeconds == days * 86_400)
    }

    @Test func everyDayOfEightHundredYearsFollowsTheOneBefore() {
        // 1600...2399 covers every leap-year rule twice over: 1700, 1800, 1900, 2100, 2200 and
        // 2300 have no leap day; 1600 and 2000 have one.
        var days = CivilDate(year: 1600, month: 1, day: 1).daysSinceEpoch
        var leapDays = 0
        for year in Int64(1600)...2399 {
            for month in 1...12 {
                for day in 1...CivilDate.daysIn(month: month, year: year) {
                    let date = CivilDate(year: year, month: month, day: day)
                    #expect(date.isValid)
                    #expect(date.daysSinceEpoch == days, "\(year)-\(month)-\(day)")
                    #expect(CivilDate(daysSinceEpoch: days) == date)
                    if month == 2 && day == 29 { leapDays += 1 }
                    days += 1
                }
            }
        }
        #expect(leapDays == 194)
        #expect(CivilDate(year: 2400, month: 1, day: 1).daysSinceEpoch == days)
    }

    @Test(arguments: [
        CivilDate(year: 2023, month: 2, day: 29), CivilDate(year: 1900, month: 2, day: 29), CivilDate(year: 2026, month: 4, day: 31),
        CivilDate(year: 2026, month: 0, day: 1), CivilDate(year: 2026, month: 13, day: 1), CivilDate(year: 2026, month: 1, day: 0),
        CivilDate(year: 2026, month: 1, day: 32),
    ])
    func daysTheCalendarLacksAreInvalid(date: CivilDate) {
        #expect(!date.isValid)
    }

    @Test func theNamesStartWithJanuaryAndSunday() {
        #expect(CivilDate.monthAbbreviations.count == 12)
        #expect(CivilDate.monthAbbreviations.first == "Jan")
        #expect(CivilDate.weekdayAbbreviations.count == 7)
        #expect(CivilDate.weekdayAbbreviations[UTCTime(secondsSinceEpoch: 0).weekday] == "Thu")
    }
}
