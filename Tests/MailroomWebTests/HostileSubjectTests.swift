import HTTP
import MailroomCore
import Testing

/// A subject written to break out of the markup is shown as text everywhere it appears.
struct HostileSubjectTests {
    static let subject = #"<script>alert("x")</script> Tom's "quote" & co"#
    /// The subject as text between tags: `& < >` escaped, quotes left alone.
    static let asText = #"&lt;script&gt;alert("x")&lt;/script&gt; Tom's "quote" &amp; co"#
    /// The subject inside a double-quoted attribute value.
    static let asAttribute = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Tom&#39;s &quot;quote&quot; &amp; co"

    let inbox: TestApp
    let id: MessageID

    init() throws {
        inbox = try TestApp(subjects: ["Plain", Self.subject], bodies: [Self.subject: "<img src=x onerror=alert(1)>"])
        id = inbox.id(Self.subject)
    }

    static let ownScript = "<script src=\"/app.js\" defer></script>"

    private func expectNothingRaw(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        // Mailroom's own script, once, in the head; no other.
        #expect(html.components(separatedBy: "<script").count == 2, sourceLocation: sourceLocation)
        #expect(!html.replacingOccurrences(of: Self.ownScript, with: "").contains("<script"), sourceLocation: sourceLocation)
        #expect(!html.contains("<img"), sourceLocation: sourceLocation)
        #expect(!html.contains(Self.subject), sourceLocation: sourceLocation)
    }

    @Test func theListShowsItAsText() throws {
        let html = try inbox.get("/mailboxes/inbox").html
        expectNothingRaw(html)
        #expect(try #require(html.row(id)).contains("<span class=\"subject\">\(Self.asText)</span>"))
        #expect(html.contains("aria-label=\"Delete “\(Self.asAttribute)”\""))
    }

    @Test func theEditingListEscapesItInAriaLabels() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=active&selected=\(id)").html
        expectNothingRaw(html)
        for label in ["Select “\(Self.asAttribute)”", "Move “\(Self.asAttribute)” up", "Move “\(Self.asAttribute)” down"] {
            #expect(html.contains("aria-label=\"\(label)\""), "\(label)")
        }
        #expect(html.checkedIDs == [id.description])
    }

    @Test func theConfirmationEscapesIt() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=transient&row=\(id)").html
        expectNothingRaw(html)
        #expect(html.contains("aria-label=\"Confirm delete “\(Self.asAttribute)”\""))
    }

    @Test func theMessagePageEscapesItInTitleHeadingAndForm() throws {
        let html = try inbox.get("/messages/\(id)").html
        expectNothingRaw(html)
        #expect(html.content(of: "title") == "\(Self.asText) — Mailroom")
        #expect(html.content(of: "h1") == Self.asText)
        #expect(html.tag(id: "subject")?.attribute("value") == Self.asAttribute)
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
    }

    @Test func aRefusedAddKeepsItEscaped() throws {
        let typed = Self.subject + String(repeating: "!", count: 200)
        let response = try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", typed), ("body", "</textarea><script>x</script>")])
        #expect(response.code == 422)
        expectNothingRaw(response.html)
        #expect(response.html.contains("value=\"\(Self.asAttribute)!!!"))
        #expect(response.html.contains("&lt;/textarea&gt;&lt;script&gt;x&lt;/script&gt;</textarea>"))
    }

    @Test func aHostileQueryIsEchoedOnlyAsText() throws {
        let response = try inbox.get("/mailboxes/inbox?mode=%3Cscript%3Ealert(1)%3C/script%3E")
        #expect(response.code == 400)
        expectNothingRaw(response.html)
        #expect(response.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func aSubjectAddedThroughTheFormIsStoredAsTypedAndShownEscaped() throws {
        let response = try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", "</title><b>x</b>")])
        #expect(response.code == 303)
        #expect(inbox.subjects.first == "</title><b>x</b>")
        let html = try inbox.get("/messages/\(inbox.id("</title><b>x</b>"))").html
        #expect(html.content(of: "title") == "&lt;/title&gt;&lt;b&gt;x&lt;/b&gt; — Mailroom")
        #expect(!html.contains("<b>"))
    }
}
