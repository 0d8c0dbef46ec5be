import Glibc
import Testing

/// Pages show times in the machine's zone (`--time-zone`, else `TZ`), named on the message page.
@Suite struct TimeZoneTests {
    @Test func theMessagePageAndTheListShowTheChosenZone() throws {
        let database = ScratchDatabase("zone")
        let server = try RunningMailroom(database: database.path, extra: ["--time-zone", "Asia/Tokyo"])
        defer { _ = try? server.stop() }
        let client = HTTPClient(port: server.port)
        let token = try client.fetchFormToken()
        #expect(try client.postForm("/mailboxes/inbox", [("action", "add"), ("subject", "Zoned")], token: token).status == 303)
        let list = try client.send("GET", "/mailboxes/inbox")
        let html = String(decoding: list.body, as: UTF8.self)
        let id = try #require(html.split(separator: "/messages/").dropFirst().first?.prefix { $0.isNumber })
        let page = String(decoding: try client.send("GET", "/messages/\(id)").body, as: UTF8.self)
        // The page's machine-readable time is UTC ("…T17:35:00Z"); what it shows is Tokyo's.
        let stamp = try #require(page.split(separator: "datetime=\"").dropFirst().first)
        let utcHour = try #require(Int(stamp.split(separator: "T")[1].prefix(2)))
        let hour = (utcHour + 9) % 24
        #expect(page.contains(" JST"), "the zone is named")
        #expect(page.contains("at \(hour < 10 ? "0" : "")\(hour):"), "the hour is Tokyo's (UTC+9)")
        #expect(!page.contains(" UTC<"))
    }

    @Test func anUnknownZoneIsRefusedAtStart() throws {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: ["--time-zone", "Mars/Olympus"])
        #expect(try program.waitForExit(within: 10) == 2)
        #expect(program.errorText.contains("no time zone"))
    }
}
