import MailroomCore
@testable import MailroomStore
import Testing

/// Tags in the file: links made and dropped, counts kept by triggers through every move, read
/// and delete, `tag:` in searches, and "all N" tagging only what was there.
@Suite struct TagStoreTests {
    private func store(_ path: String, inbox count: Int) throws -> Store {
        let store = try Store(path: path)
        var library = Library()
        for index in (1...count).reversed() {
            try library.add(Draft(subject: "Message \(index)"), to: .inbox, at: Int64(index))
        }
        try store.write { try $0.replaceAll(with: library) }
        return store
    }

    private func ids(_ store: Store, _ box: MailboxID = .inbox) throws -> [MessageID] {
        try store.library()[box]?.ids ?? []
    }

    private func counts(_ store: Store, in box: MailboxID) throws -> [String: [Int]] {
        let tags = try store.read { reader throws(StoreError) in try reader.tags(in: box) }
        return Dictionary(uniqueKeysWithValues: tags.map { ($0.name, [$0.count, $0.unreadCount]) })
    }

    @Test func countsFollowEveryTagReadMoveAndDelete() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 6)
            defer { store.close() }
            let all = try ids(store)
            let outcome = try store.write { try $0.addTags(["Scan", "urgent"], to: all[0..<4], in: .inbox) }
            #expect(outcome.applied.count == 4)
            #expect(try counts(store, in: .inbox) == ["Scan": [4, 4], "urgent": [4, 4]])
            // Another spelling is the same tag, kept as first spelled.
            try store.write { try $0.addTags(["SCAN"], to: [all[4]], in: .inbox) }
            #expect(try counts(store, in: .inbox)["Scan"] == [5, 5])
            try store.write { try $0.setUnread(false, for: [all[0], all[5]], in: .inbox) }
            #expect(try counts(store, in: .inbox)["Scan"] == [5, 4])
            try store.write { try $0.move([all[0], all[1]], from: .inbox, to: .archive) }
            #expect(try counts(store, in: .inbox)["Scan"] == [3, 3])
            #expect(try counts(store, in: .archive) == ["Scan": [2, 1], "urgent": [2, 1]])
            try store.write { try $0.move([all[2]], from: .inbox, to: .trash) }
            // Outside Trash, every mailbox together.
            let everywhere = try store.read { reader throws(StoreError) in try reader.tags() }
            #expect(everywhere.map(\.name) == ["Scan", "urgent"])
            #expect(everywhere.map(\.count) == [4, 3])
            try store.write { _ = try $0.deletePermanently([all[2]]) }
            #expect(try counts(store, in: .trash) == [:])
            // Untagging the last message with a tag drops the tag, so it can be spelled anew.
            try store.write { try $0.removeTags(["urgent"], from: [all[3]], in: .inbox) }
            try store.write { try $0.removeTags(["urgent"], from: [all[0], all[1]], in: .archive) }
            #expect(try store.read { reader throws(StoreError) in try reader.tag(named: "URGENT") } == nil)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func taggingNamesOnlyMessagesInTheMailboxAndCountsTheOthersAsMissing() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 3)
            defer { store.close() }
            let all = try ids(store)
            try store.write { try $0.move([all[0]], from: .inbox, to: .archive) }
            let outcome = try store.write { try $0.addTags(["x"], to: all + [MessageID(999)], in: .inbox) }
            #expect(outcome.applied.count == 2)
            #expect(outcome.missing.count == 2)
            #expect(try store.library()[.archive]?.messages.first?.tags == [])
        }
    }

    @Test func rowsCarryTheirTagsSortedAndTagSearchesFindThem() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 5)
            defer { store.close() }
            let all = try ids(store)
            try store.write { try $0.addTags(["beta", "Alpha"], to: [all[1], all[3]], in: .inbox) }
            try store.write { try $0.addTags(["Team A"], to: [all[3]], in: .inbox) }
            let page = try store.read { reader throws(StoreError) in try reader.page(of: .inbox, from: .top, limit: 10) }
            #expect(page.rows[1].tags == ["Alpha", "beta"])
            #expect(page.rows[3].tags == ["Alpha", "beta", "Team A"])
            func found(_ text: String) throws -> [MessageID] {
                let query = try SearchQuery(text)
                return try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: .top, limit: 10) }.rows.map(\.id)
            }
            #expect(try found("tag:ALPHA") == [all[1], all[3]])
            #expect(try found("tag:\"team a\"") == [all[3]])
            #expect(try found("tag:alpha -tag:\"Team A\"") == [all[1]])
            #expect(try found("-tag:alpha") == [all[0], all[2], all[4]])
            #expect(try Set(found("message tag:beta")) == [all[3], all[1]])
            #expect(try found("tag:nothing").isEmpty)
        }
    }

    @Test func allNTagsOnlyWhatWasThereAtTheRevision() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 50)
            defer { store.close() }
            let revision = store.revision
            let late = try store.write { try $0.add(Draft(subject: "Late"), to: .inbox, at: 1_000) }
            let tagged = try store.write { try $0.addTags(["batch"], to: Everything(in: .inbox, asOf: revision)) }
            #expect(tagged == 50)
            #expect(try counts(store, in: .inbox)["batch"] == [50, 50])
            #expect(try store.library()[.inbox]?.messages.first { $0.id == late.id }?.tags == [])
            let untagged = try store.write {
                try $0.removeTags(["batch"], from: Everything(in: .inbox, asOf: revision, matching: try SearchQuery("tag:batch")))
            }
            #expect(untagged == 50)
            #expect(try counts(store, in: .inbox) == [:])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func renamingDeletingAndSettingTagsByName() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 3)
            defer { store.close() }
            let all = try ids(store)
            try store.write { try $0.addTags(["one"], to: all, in: .inbox) }
            try store.write { try $0.addTags(["two"], to: [all[0]], in: .inbox) }
            #expect(throws: StoreError.refused(.invalidName("There is already a tag “Two”."))) {
                try store.write { try $0.renameTag("one", to: "Two") }
            }
            try store.write { try $0.renameTag("ONE", to: "One") }
            #expect(try counts(store, in: .inbox) == ["One": [3, 3], "two": [1, 1]])
            #expect(try store.write { try $0.setTags(["three"], of: [all[0], MessageID(999)]) } == 1)
            #expect(try store.library()[.inbox]?.messages.map(\.tags) == [["three"], ["One"], ["One"]])
            #expect(try store.write { try $0.deleteTag("one") })
            #expect(try !store.write { try $0.deleteTag("one") })
            #expect(try counts(store, in: .inbox) == ["three": [1, 1]])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func theIntegrityCheckFindsTagCountsThatDisagree() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 2)
            defer { store.close() }
            try store.write { try $0.addTags(["x"], to: try ids(store), in: .inbox) }
            try store.write { transaction in try transaction.run("UPDATE tag_counts SET total = 5", []) }
            #expect(try store.integrityCheck() == "the counts of tag x in mailbox 1 are wrong")
        }
    }
}
