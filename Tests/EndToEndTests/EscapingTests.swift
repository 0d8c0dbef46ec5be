import Testing

/// A subject typed by anyone on the LAN comes back as text, never as markup, wherever it appears.
@Suite struct EscapingTests {
    static let subject = #"<script>alert("x")</script> "quoted" 'single'"#
    /// The subject as text between tags: `<` and `>` escaped.
    static let asText = #"&lt;script&gt;alert("x")&lt;/script&gt; "quoted" 'single'"#
    /// The subject inside a double-quoted attribute: quotes escaped as well.
    static let body = #"Body with </textarea><b>bold</b> & "quotes""#
    static let asAttribute = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &quot;quoted&quot; &#39;single&#39;"

    @Test func aHostileSubjectIsEscapedInTheList() throws {
        let (_, tab, id) = try Self.inboxWithHostileMessage()
        let page = try tab.get("/mailboxes/inbox")
        Self.expectNeverRaw(page)
        let row = try #require(page.row(id))
        let subject = try #require(page.tags(inside: row).first { $0.classes.contains("subject") })
        #expect(page.text(of: subject) == Self.subject)
        #expect(page.innerHTML(of: subject) == Self.asText)
        #expect(page.html.contains(#"aria-label="Delete “\#(Self.asAttribute)”""#))
    }

    @Test func aHostileSubjectIsEscapedInTheEditingListAndItsLabels() throws {
        let (_, tab, id) = try Self.inboxWithHostileMessage()
        let page = try tab.get("/mailboxes/inbox?mode=active&selected=\(id)")
        Self.expectNeverRaw(page)
        #expect(page.checkedIDs == [id])
        for label in ["Select", "Delete"] {
            #expect(page.html.contains(#"aria-label="\#(label) “\#(Self.asAttribute)”""#))
        }
        for direction in ["up", "down"] {
            #expect(page.html.contains(#"aria-label="Move “\#(Self.asAttribute)” \#(direction)""#))
        }
        let labels = page.tags.compactMap { $0["aria-label"] }.filter { $0.contains("alert") }
        #expect(labels == ["Select “\(Self.subject)”", "Move “\(Self.subject)” up", "Move “\(Self.subject)” down",
                           "Delete “\(Self.subject)”"])
    }

    @Test func aHostileSubjectIsEscapedInItsDeleteConfirmation() throws {
        let (_, tab, id) = try Self.inboxWithHostileMessage()
        let page = try tab.get("/mailboxes/inbox?mode=transient&row=\(id)")
        Self.expectNeverRaw(page)
        #expect(page.confirmingRowIDs == [id])
        #expect(page.html.contains(#"aria-label="Confirm delete “\#(Self.asAttribute)”""#))
    }

    @Test func aHostileSubjectIsEscapedOnTheMessagePage() throws {
        let (_, tab, id) = try Self.inboxWithHostileMessage()
        let page = try tab.get("/messages/\(id)")
        #expect(tab.status == 200)
        Self.expectNeverRaw(page)
        #expect(page.title == "\(Self.subject) — Mailroom")
        #expect(page.html.contains("<title>\(Self.asText) — Mailroom</title>"))
        #expect(page.heading == Self.subject)
        #expect(page.html.contains(#"<h1 class="message-subject">\#(Self.asText)</h1>"#))
        let field = try #require(page.element(id: "subject"))
        #expect(field["value"] == Self.subject)
        #expect(page.html.contains(#"value="\#(Self.asAttribute)""#))
        #expect(page.form(id: "save-form")?.values("subject") == [Self.subject])
        #expect(page.form(id: "save-form")?.values("body") == [Self.body])
        #expect(page.html.contains("&lt;/textarea&gt;&lt;b&gt;bold&lt;/b&gt; &amp; \"quotes\"</textarea>"))
    }

    @Test func aRefusedHostileSubjectIsEscapedWhenTheFormIsShownAgain() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        let page = try tab.addMessage(subject: Self.subject, body: String(repeating: "x", count: 10_001))
        #expect(tab.status == 422)
        Self.expectNeverRaw(page)
        #expect(page.form(id: "add-form")?.values("subject") == [Self.subject])
        #expect(page.html.contains(#"value="\#(Self.asAttribute)""#))
    }

    // MARK: Helpers

    /// A server whose newest message has the hostile subject, added through the form.
    private static func inboxWithHostileMessage() throws -> (TestServer, BrowserSession, Int) {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        let page = try tab.addMessage(subject: subject, body: body)
        #expect(tab.status == 200)
        #expect(page.notice == "Message added.")
        let id = try #require(page.rowIDs.first)
        #expect(server.mailbox.messages.first?.subject == subject)
        return (server, tab, id)
    }

    /// No script element, no raw tag from the input, and no start tag that a quote broke open.
    private static func expectNeverRaw(_ page: Page, sourceLocation: SourceLocation = #_sourceLocation) {
        // Mailroom's own script, once, in the head; no other.
        let lowered = page.html.lowercased().replacingOccurrences(of: "<script src=\"/app.js\" defer></script>", with: "")
        #expect(page.html.lowercased().components(separatedBy: "<script").count == 2, sourceLocation: sourceLocation)
        #expect(!lowered.contains("<script"), sourceLocation: sourceLocation)
        #expect(!lowered.contains("</script"), sourceLocation: sourceLocation)
        #expect(!lowered.contains("<b>bold"), sourceLocation: sourceLocation)
        for tag in page.tags {
            let markup = String(decoding: page.bytes[tag.start..<tag.end], as: UTF8.self)
            #expect(!markup.contains(#"("x")"#), "a raw quote inside a tag: \(markup)", sourceLocation: sourceLocation)
            #expect(!markup.contains("'single'"), "a raw quote inside a tag: \(markup)", sourceLocation: sourceLocation)
        }
        // Every subject-bearing start tag still parses into the attributes the builder wrote.
        for tag in page.tags where tag.attributes.contains(where: { $0.value.contains("alert") }) {
            #expect(!tag.has("x") && !tag.has("quoted") && !tag.has("single"), sourceLocation: sourceLocation)
        }
    }
}
