import MailroomCore
import MailroomService
import Testing

/// Mail tagged as it arrives (its `X-Tags`, `+tag` addresses when asked, rules), and the tag
/// commands on a list and by name.
@Suite struct TaggingTests {
    private func tags(_ service: Mailroom, _ box: MailboxID = .inbox) -> [[String]] {
        service.library[box]?.messages.map(\.tags) ?? []
    }

    @Test func anXTagsHeaderTagsItsMailAlways() throws {
        let service = try makeService(inbox: [])
        let raw = Array("From: a@example.test\r\nX-Tags: Scan, urgent, scan\r\nSubject: Toner\r\n\r\nLow.\r\n".utf8)
        _ = try service.deliver(raw).get()
        #expect(tags(service) == [["Scan", "urgent"]])
    }

    @Test func plusAddressesTagOnlyWhenAskedAndBesideRouting() throws {
        let service = try makeService(inbox: [])
        _ = try service.deliver(rawMail("Before"), to: ["desk+later@example.test"]).get()
        service.useTagging(Tagging(plusAddresses: true))
        let work = try service.createMailbox(named: "Work")
        _ = try service.deliver(rawMail("After"), to: ["desk+later@example.test", "desk+work@example.test"]).get()
        #expect(tags(service) == [[]])
        // Routed by `+work` to Work, and tagged by both plus parts there.
        #expect(tags(service, work) == [["later", "work"]])
    }

    @Test func rulesTagNewMailTheirSearchFindsInTheMailboxItLandsIn() throws {
        let service = try makeService(inbox: [])
        let rules = try TagRule.rules(in: """
            # invoices from the scanner
            invoice, accounts = subject:invoice
            urgent = tag:accounts is:unread
            """)
        service.useTagging(Tagging(rules: rules))
        _ = try service.deliver(rawMail("Invoice 42")).get()
        _ = try service.deliver(rawMail("Lunch")).get()
        #expect(tags(service) == [[], ["accounts", "invoice", "urgent"]])
        let counted = try service.tags()
        #expect(counted.map(\.name) == ["accounts", "invoice", "urgent"])
    }

    @Test(arguments: [
        ("invoices", "line 1: write a rule as “tag1, tag2 = search”."),
        ("# ok\n!! = subject:x", "line 2: name a tag before “=” (letters, digits, spaces, - _ . and @)."),
        ("x = is:maybe", #"line 1: "is:maybe" isn't something to search for: use is:unread, is:read, is:flagged or is:unflagged."#),
        ("x = ", "line 1: write a search after “=”: it would match all mail."),
    ])
    func aRuleThatCannotWorkIsRefusedWithItsLine(text: String, problem: String) {
        #expect(throws: TagRuleError.self) { try TagRule.rules(in: text) }
        do {
            _ = try TagRule.rules(in: text)
        } catch {
            #expect(error.description == problem)
        }
    }

    @Test func theToolbarsTagCommandActsOnTheTicksAndSaysWhatWasGone() throws {
        let service = try makeService(inbox: ["One", "Two", "Three"])
        let ids = service.library[.inbox]?.ids ?? []
        _ = try service.run(.removeSelected(.move(to: .archive)), on: [ids[2]], pageSize: 50)
        let state = ListState(mode: .active, selection: ids)
        let (next, notice) = try service.run(.tag(["Later"]), in: .inbox, state: state, pageSize: 50)
        #expect(notice == Notice(.tagged, count: 2, gone: 1, tags: ["Later"]))
        #expect(next.mode == .active)
        #expect(tags(service) == [["Later"], ["Later"]])
        let (_, empty) = try service.run(.tag([]), in: .inbox, state: next, pageSize: 50)
        #expect(empty?.kind == .needsTag)
        let (_, untagged) = try service.run(.untag(["later"]), in: .inbox, state: ListState(mode: .active, selection: [ids[0]]), pageSize: 50)
        #expect(untagged == Notice(.untagged, count: 1, tags: ["later"]))
        #expect(tags(service) == [[], ["Later"]])
    }

    @Test func tagsByNameAreRenamedSetAndDeletedWithClearRefusals() throws {
        let service = try makeService(inbox: ["One", "Two"])
        let ids = service.library[.inbox]?.ids ?? []
        #expect(try service.setTags(["a", "b"], of: ids + [MessageID(999)]) == 2)
        #expect(throws: ServiceError.badInput("“!!” is not a tag name: use letters, digits, spaces, - _ . and @.")) {
            try service.setTags(["!!"], of: ids)
        }
        #expect(throws: ServiceError.notFound("There is no tag “c”.")) { try service.renameTag("c", to: "d") }
        #expect(throws: ServiceError.refused("There is already a tag “b”.")) { try service.renameTag("a", to: "b") }
        try service.renameTag("a", to: "Alpha")
        try service.deleteTag("B")
        #expect(throws: ServiceError.notFound("There is no tag “B”.")) { try service.deleteTag("B") }
        #expect(tags(service) == [["Alpha"], ["Alpha"]])
    }
}
