import Testing

/// A refused Add answers 422 with the reason and what the person typed; nothing is added.
@Suite struct AddValidationTests {
    @Test func anEmptySubjectIsRefusedAndTheTypedInputIsKept() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        let before = server.mailbox

        let page = try tab.addMessage(subject: "   ", body: "Lunch at noon?", author: "Priya")
        #expect(tab.status == 422)
        #expect(tab.redirects.isEmpty)
        #expect(page.formErrors == ["Subject can't be empty."])
        #expect(page.element(id: "compose")?.has("open") == true)
        #expect(page.element(id: "subject")?["aria-invalid"] == "true")
        let form = try #require(page.form(id: "add-form"))
        #expect(form.values("author") == ["Priya"])
        #expect(form.values("body") == ["Lunch at noon?"])
        #expect(page.rowIDs == [1, 2])
        #expect(server.mailbox == before)

        #expect(try tab.get("/mailboxes/inbox").rowIDs == [1, 2])
    }

    @Test func anOverLongBodyIsRefusedAndTheTypedInputIsKept() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        let before = server.mailbox
        let body = String(repeating: "long ", count: 2_000) + "!"

        let page = try tab.addMessage(subject: "Keep me", body: body)
        #expect(tab.status == 422)
        #expect(page.formErrors == ["Message is too long: at most 10000 characters."])
        let form = try #require(page.form(id: "add-form"))
        #expect(form.values("subject") == ["Keep me"])
        #expect(form.values("body") == [body])
        #expect(page.rowIDs == [1, 2])
        #expect(server.mailbox == before)
    }

    @Test func aValidAddPutsTheNewUnreadMessageOnTop() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        let page = try tab.addMessage(subject: "  Hello there  ", body: "Body", author: "Jun")
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL == "/mailboxes/inbox?done=added")
        #expect(page.rowIDs == [2, 1])
        #expect(page.rowClasses(2).contains("unread"))
        #expect(server.mailbox.messages.first?.subject == "Hello there")
    }
}
