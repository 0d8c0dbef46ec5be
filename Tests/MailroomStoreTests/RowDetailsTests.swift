import MailroomCore
import Testing
@testable import MailroomStore

/// What a list row shows of a mailed message: read for a page's ids, close together (one range)
/// or scattered (looked up one by one), always the same details, and only for the ids asked.
@Suite struct RowDetailsTests {
    private func mail(to envelope: [String], toHeader: String, size: Int = 0) -> IncomingMail {
        IncomingMail(
            subject: "Report", sender: "Cron", text: "done", html: nil, envelopeFrom: "cron@host.test",
            envelopeTo: envelope, fromHeader: "cron@host.test", toHeader: toHeader, ccHeader: "",
            sentAt: nil, messageID: nil, attachments: [], peer: "127.0.0.1",
            raw: Array("Subject: Report\r\n\r\n\(String(repeating: "x", count: size))\r\n".utf8))
    }

    @Test func closeAndScatteredIdsGiveTheSameDetailsAndOnlyTheirOwn() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let builds = try store.write { try $0.createMailbox(named: "Builds") }
            try store.write { try $0.setAddresses(["ci@example.test"], for: builds) }
            let (inbox, elsewhere, posted) = try store.write { transaction in
                var inbox: [MessageID] = []
                var elsewhere: [MessageID] = []
                var posted: [MessageID] = []
                for index in 0..<30 {
                    // The envelope names two; the Builds mailbox was chosen by its address.
                    elsewhere += try transaction.addMail(
                        mail(to: ["ops@example.test", "ci@example.test"], toHeader: "Ops <ops@example.test>"), to: [builds], at: 1_000)
                    inbox += try transaction.addMail(
                        mail(to: ["desk@example.test"], toHeader: "\"Desk, Front\" <front@example.test>", size: index), to: [.inbox], at: 1_000)
                    posted.append(try transaction.add(Draft(subject: "Note \(index)"), to: .inbox, at: 1_000).id)
                }
                return (inbox, elsewhere, posted)
            }
            let page = Array((inbox + posted).shuffled())
            let close = try store.read { reader throws(StoreError) in try reader.rowDetails(of: page) }
            #expect(Set(close.keys) == Set(inbox))
            for (offset, id) in inbox.enumerated() {
                // No address routed it: the To header's first address, though its name has a comma.
                #expect(close[id]?.recipient == "front@example.test")
                #expect(close[id]?.size == "Subject: Report\r\n\r\n\r\n".utf8.count + offset)
                #expect(close[id]?.hasAttachments == false)
            }
            // The other mailbox's mail lies between the page's ids: read in the range, never returned.
            #expect(inbox.contains { id in elsewhere.contains { $0.rawValue > id.rawValue } })
            let builds30 = try store.read { reader throws(StoreError) in try reader.rowDetails(of: elsewhere) }
            #expect(builds30.count == 30)
            #expect(builds30.values.allSatisfy { $0.recipient == "ci@example.test" })

            // Ids too far apart for one range: looked up one by one, with the same details.
            let far = MessageID(Int64(Reader.rangeSpan(for: 3)) + (inbox.last?.rawValue ?? 0) + 1)
            let scattered = try store.read { reader throws(StoreError) in try reader.rowDetails(of: [inbox[0], inbox[29], far]) }
            #expect(scattered.count == 2)
            #expect(scattered[inbox[0]] == close[inbox[0]])
            #expect(scattered[inbox[29]] == close[inbox[29]])
            #expect(try store.read { reader throws(StoreError) in try reader.rowDetails(of: []) }.isEmpty)
            #expect(try store.read { reader throws(StoreError) in try reader.rowDetails(of: posted) }.isEmpty)
        }
    }

    @Test func idsAreWrittenAsAJSONArrayOfTheirNumbers() {
        #expect(Reader.jsonArray(of: []) == "[]")
        #expect(Reader.jsonArray(of: [MessageID(0)]) == "[0]")
        #expect(Reader.jsonArray(of: [MessageID(7), MessageID(10), MessageID(1_234_567_890_123)]) == "[7,10,1234567890123]")
        #expect(Reader.jsonArray(of: [MessageID(-5), MessageID(Int64.max), MessageID(Int64.min)])
            == "[-5,\(Int64.max),\(Int64.min)]")
    }

    @Test func everyIdOfAPageAsksForItsOwnNumber() {
        let ids = (1...500).map { MessageID(Int64($0) * 37) }
        #expect(Reader.jsonArray(of: ids) == "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]")
    }
}
