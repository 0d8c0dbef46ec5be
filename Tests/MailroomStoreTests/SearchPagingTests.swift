import MailroomCore
@testable import MailroomStore
import Testing

/// A search's pages, older and newer, each saying rightly whether there is more either way and
/// how many match in all, whether words drive it (keys are ids) or only filters (keys are ranks).
@Suite struct SearchPagingTests {
    /// Seven matches ("jam", unread; ids in `matches`, oldest first) among as many that do not
    /// match (read).
    private func withStore(_ body: (Store, [Int64]) throws -> Void) throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var matches: [Int64] = []
            var others: [Int64] = []
            for index in 0..<7 {
                matches.append(try SubstringSearchTests.post("Paper jam \(index)", to: store))
                others.append(try SubstringSearchTests.post("Toner low \(index)", to: store))
            }
            try store.write { transaction in
                _ = try transaction.setUnread(true, for: matches.map { MessageID($0) }, in: .inbox)
                _ = try transaction.setUnread(false, for: others.map { MessageID($0) }, in: .inbox)
            }
            try body(store, matches)
        }
    }

    private func page(_ store: Store, _ text: String, _ place: PagePlace) throws -> ListSlice {
        let query = try SearchQuery(text)
        return try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: place, limit: 3) }
    }

    @Test(arguments: ["jam", "jam is:unread", "subject:jam", "is:unread"])
    func pagesOlderAndNewerSayWhatLiesBeyondThem(text: String) throws {
        try withStore { store, matches in
            let newestFirst = Array(matches.reversed())
            let top = try page(store, text, .top)
            #expect(top.rows.map(\.id.rawValue) == Array(newestFirst[0..<3]))
            #expect(!top.hasNewer && top.hasOlder && top.total == 7 && !top.totalIsAtLeast)

            let second = try page(store, text, .below(try #require(top.keys.last)))
            #expect(second.rows.map(\.id.rawValue) == Array(newestFirst[3..<6]))
            #expect(second.hasNewer && second.hasOlder && second.total == 7)

            let last = try page(store, text, .below(try #require(second.keys.last)))
            #expect(last.rows.map(\.id.rawValue) == [newestFirst[6]])
            #expect(last.hasNewer && !last.hasOlder)

            // Below the oldest match there is nothing: the last full page instead.
            let beyond = try page(store, text, .below(try #require(last.keys.last)))
            #expect(beyond.rows.map(\.id.rawValue) == Array(newestFirst[4..<7]))
            #expect(beyond.hasNewer && !beyond.hasOlder)

            // Back up from the last page: the three above it.
            let back = try page(store, text, .above(try #require(last.keys.first)))
            #expect(back.rows.map(\.id.rawValue) == Array(newestFirst[3..<6]))
            #expect(back.hasNewer && back.hasOlder)

            // Fewer than a page above: the top page.
            let up = try page(store, text, .above(try #require(second.keys.first)))
            #expect(up.rows.map(\.id.rawValue) == Array(newestFirst[0..<3]))
            #expect(!up.hasNewer && up.hasOlder)
        }
    }

    @Test func aSearchThatFitsOnItsFirstPageIsCountedFromIt() throws {
        try withStore { store, matches in
            let one = try page(store, "jam 4", .top)
            #expect(one.rows.map(\.id.rawValue) == [matches[4]])
            #expect(!one.hasNewer && !one.hasOlder && one.total == 1)
            let none = try page(store, "nothing", .top)
            #expect(none.rows.isEmpty && none.total == 0 && !none.hasOlder)
            let exactly = try page(store, "jam -0 -1 -2 -3", .top)
            #expect(exactly.rows.count == 3 && exactly.total == 3 && !exactly.hasOlder)
        }
    }
}
