import MailroomCore
import Testing

/// Tag names as Mailpit cleans them, and `tag:` in a search.
@Suite struct TagTests {
    @Test(arguments: [
        ("invoices", "invoices"),
        ("  Team   A ", "Team A"),
        ("scan/2026!", "scan 2026"),
        ("über-wichtig", "ber-wichtig"),
        ("a@b.c_d-e", "a@b.c_d-e"),
        ("\t\n", nil),
        ("!!!", nil),
        ("日本", nil),
    ] as [(String, String?)])
    func namesAreCleanedAsMailpitCleansThem(given: String, cleaned: String?) {
        #expect(Tag.cleaned(given) == cleaned)
    }

    @Test func aNameIsCutAtOneHundredBytesWithoutATrailingSpace() throws {
        let long = String(repeating: "a", count: 99) + " bcd"
        let cleaned = try #require(Tag.cleaned(long))
        #expect(cleaned == String(repeating: "a", count: 99))
        #expect(Tag.cleaned(String(repeating: "x", count: 300))?.utf8.count == 100)
    }

    @Test func aHeaderListIsSplitOnCommasAndEachNameKeptOnceWhateverItsCase() {
        #expect(Tag.list("Scan, urgent ,, URGENT, scan!, Team A") == ["Scan", "urgent", "Team A"])
        #expect(Tag.list("") == [])
        #expect(Tag.list(" , ") == [])
    }

    @Test func plusAddressesCarryTheirTagsAfterEachPlus() {
        #expect(Tag.plusTags(of: "scan+invoices+2026@example.test") == ["invoices", "2026"])
        #expect(Tag.plusTags(of: "ann@example.test") == [])
        #expect(Tag.plusTags(of: "ann+@example.test") == [])
        #expect(Tag.plusTags(of: "bob+Team A+team a@x") == ["Team A"])
    }

    @Test func tagsSortWithoutRegardToCase() {
        #expect(Tag.sorted(["beta", "Alpha", "gamma", "Beta2"]) == ["Alpha", "beta", "Beta2", "gamma"])
    }

    @Test func aTagSearchIsTheNameQuotedWhenItHasASpace() throws {
        #expect(Tag.search(for: "invoices") == "tag:invoices")
        #expect(Tag.search(for: "Team A") == #"tag:"Team A""#)
        let query = try SearchQuery(Tag.search(for: "Team A"))
        #expect(query.tags == [SearchQuery.TagFilter(name: "Team A", isExcluded: false)])
    }

    @Test func tagFiltersAreReadWantedAndLeftOut() throws {
        let query = try SearchQuery("invoice tag:Scan -tag:done")
        #expect(query.tags == [SearchQuery.TagFilter(name: "Scan", isExcluded: false),
                               SearchQuery.TagFilter(name: "done", isExcluded: true)])
        #expect(query.hasWords)
        // A tag alone narrows a list, as is:unread does; so does leaving one out.
        #expect(try !SearchQuery("tag:scan").isEmpty)
        #expect(try !SearchQuery("-tag:scan").isEmpty)
        #expect(try !SearchQuery("-tag:scan").hasWords)
    }
}
