import CivilDate
import Testing

@Suite struct UTCTimeFormatTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z", "Thu, 01 Jan 1970 00:00:00 +0000"),
        (Int64(951_868_799), "2000-02-29T23:59:59Z", "Tue, 29 Feb 2000 23:59:59 +0000"),
        (Int64(784_111_777), "1994-11-06T08:49:37Z", "Sun, 06 Nov 1994 08:49:37 +0000"),
        (Int64(-62_135_596_800), "0001-01-01T00:00:00Z", "Mon, 01 Jan 0001 00:00:00 +0000"),
        (Int64(253_402_300_799), "9999-12-31T23:59:59Z", "Fri, 31 Dec 9999 23:59:59 +0000"),
    ])
    func aMomentReadsTheSameInBothForms(seconds: Int64, iso: String, mail: String) {
        let time = UTCTime(secondsSinceEpoch: seconds)
        #expect(time.iso8601 == iso)
        #expect(time.mailDate == mail)
    }
}
