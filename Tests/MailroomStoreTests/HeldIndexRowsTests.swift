import MailroomCore
@testable import MailroomStore
import Testing

/// Mail stored one message after another is indexed together, once anything else runs: what
/// any statement sees of the search index is what it would be had each message been indexed at
/// once, and nothing held outlives its transaction.
@Suite struct HeldIndexRowsTests {
    private struct Refused: Error {}

    private func mail(_ word: String) -> IncomingMail {
        IncomingMail(
            subject: "Alert \(word)", sender: "Monitor", text: "The disk on host \(word) is nearly full", html: nil,
            envelopeFrom: "monitor@lan.test", envelopeTo: ["ops@lan.test"], fromHeader: "Monitor <monitor@lan.test>",
            toHeader: "ops@lan.test", ccHeader: "", sentAt: 1_700_000_000, messageID: nil, attachments: [],
            peer: "127.0.0.1", raw: Array("Subject: Alert \(word)\r\n\r\nThe disk on host \(word) is nearly full\r\n".utf8))
    }

    private func found(_ word: String, in store: Store) throws -> [MessageID] {
        let query = try SearchQuery(word)
        return try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: .top, limit: 10) }.rows.map(\.id)
    }

    /// Both indexes checked against themselves, and the rest of the file.
    private func expectWhole(_ store: Store) throws {
        for index in ["search", "search_cjk"] {
            try store.write { transaction in try transaction.run("INSERT INTO \(index) (\(index)) VALUES ('integrity-check')", []) }
        }
        #expect(try store.integrityCheck() == "ok")
    }

    private func bodyTriggerIsOn(_ store: Store) throws -> Bool {
        try store.read { reader throws(StoreError) in
            try reader.integers("SELECT value FROM counters WHERE name = 'indexed_in_bulk'", [])
        } == [0]
    }

    @Test func mailStoredInOneCommitIsEachFoundOnceItIsDurable() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let words = ["kobaltrix", "vendoquil", "plurastem", "zenthorix", "quamberlin"]
            let ids = try store.write { transaction in try words.flatMap { try transaction.addMail(mail($0), to: [], at: 1_000) } }
            for (word, id) in zip(words, ids) {
                #expect(try found(word, in: store) == [id])
            }
            #expect(try found("nearly", in: store).count == words.count)
            #expect(try bodyTriggerIsOn(store))
            try expectWhole(store)
        }
    }

    @Test func mailDeletedInTheCommitThatStoredItLeavesNoWordsBehind() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let kept = try store.write { transaction in
                let gone = try transaction.addMail(mail("droplenfax"), to: [], at: 1_000)
                let kept = try transaction.addMail(mail("stayworthy"), to: [], at: 1_000)
                // The delete trigger takes the message's words out: they must be in by then.
                _ = try transaction.move(gone, from: .inbox, to: .trash)
                #expect(try transaction.deletePermanently(gone).applied == gone)
                return kept
            }
            #expect(try found("droplenfax", in: store).isEmpty)
            #expect(try found("stayworthy", in: store) == kept)
            try expectWhole(store)
        }
    }

    @Test func aWebhookQueuedForMailLeavesItsIndexRowsHeldUntilTheCommit() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let ids = try store.write { transaction in
                let first = try transaction.addMail(mail("hookfirsta"), to: [], at: 1_000)
                try transaction.queueWebhook(Array("{}".utf8), to: ["http://127.0.0.1:9/hook"], message: first[0], at: 1_000)
                #expect(transaction.database.heldIndexRows.map(\.id) == first.map(\.rawValue))
                return first + (try transaction.addMail(mail("hooksecond"), to: [], at: 1_000))
            }
            #expect(try found("hookfirsta", in: store) == [ids[0]])
            #expect(try found("hooksecond", in: store) == [ids[1]])
            #expect(try store.read { reader throws(StoreError) in try reader.integers("SELECT count(*) FROM webhooks", []) } == [1])
            #expect(try bodyTriggerIsOn(store))
            try expectWhole(store)
        }
    }

    @Test func aSearchInTheSameCommitFindsMailJustStored() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let query = try SearchQuery("glimmerhost")
            let seen = try store.write { transaction in
                let ids = try transaction.addMail(mail("glimmerhost"), to: [], at: 1_000)
                return try transaction.search(query, in: .inbox, from: .top, limit: 10).rows.map(\.id) == ids
            }
            #expect(seen)
        }
    }

    @Test func nothingHeldOutlivesARolledBackCommitOrSavepoint() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            #expect(throws: StoreError.self) {
                try store.write { transaction in
                    _ = try transaction.addMail(mail("rollbackia"), to: [], at: 1_000)
                    throw Refused()
                }
            }
            let kept = try store.write { transaction in
                let kept = try transaction.addMail(mail("savedbyone"), to: [], at: 1_000)
                _ = try? transaction.attempt { () throws -> [MessageID] in
                    _ = try transaction.addMail(mail("undonepart"), to: [], at: 1_000)
                    throw Refused()
                }
                return kept
            }
            // A message posted afterwards is indexed by the trigger, which must be on again.
            try store.write { try $0.add(Draft(subject: "Posted by hand", body: "triggerwork"), to: .inbox, at: 2_000) }
            #expect(try found("rollbackia", in: store).isEmpty)
            #expect(try found("undonepart", in: store).isEmpty)
            #expect(try found("savedbyone", in: store) == kept)
            #expect(try found("triggerwork", in: store).count == 1)
            #expect(try bodyTriggerIsOn(store))
            try expectWhole(store)
        }
    }

    /// A run of mail takes the id counters and each mailbox's top once: whatever runs next in
    /// the transaction (a post, more mail) and the commit find them as if each message had
    /// written them, and a rolled-back run leaves them as they were.
    @Test func countersAndTopsKeptForARunOfMailAreRightForWhatComesNext() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            func counters() throws -> [Int64] {
                try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT value FROM counters WHERE name IN ('next_raw_id', 'next_message_id') ORDER BY name", [])
                }
            }
            let before = try counters()
            var mailed: [MessageID] = []
            var posted = MessageID(0)
            var last: [MessageID] = []
            try store.write { transaction in
                for word in ["ranfirsta", "ransecond", "ranthirdo"] { mailed += try transaction.addMail(mail(word), to: [], at: 1_000) }
                posted = try transaction.add(Draft(subject: "Posted between"), to: .inbox, at: 1_000).id
                last = try transaction.addMail(mail("ranfourth"), to: [], at: 1_000)
            }
            // The counters in name order: next_message_id, then next_raw_id.
            let (message, raw) = (before[0], before[1])
            #expect(mailed.map(\.rawValue) == [message, message + 1, message + 2])
            #expect(posted.rawValue == message + 3)
            #expect(last.map(\.rawValue) == [message + 4])
            let values = try counters()
            #expect(values == [message + 5, raw + 4], "the post took no raw message")
            let order = try store.read { reader throws(StoreError) in
                try reader.integers("SELECT id FROM messages WHERE mailbox = ? ORDER BY rank DESC", [.integer(MailboxID.inbox.rawValue)])
            }
            #expect(Array(order.prefix(5)) == ([last[0], posted] + mailed.reversed()).map(\.rawValue))

            #expect(throws: StoreError.self) {
                try store.write { transaction in
                    _ = try transaction.addMail(mail("rolledback"), to: [], at: 1_000)
                    throw Refused()
                }
            }
            #expect(try counters() == values)
            let next = try store.write { try $0.addMail(mail("afterwards"), to: [], at: 1_000) }
            #expect(next.map(\.rawValue) == [values[0]])
            try expectWhole(store)
        }
    }
}
