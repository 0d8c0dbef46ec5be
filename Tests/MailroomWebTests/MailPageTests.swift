import Foundation
import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// A message that arrived over SMTP, as its page and the addresses under it show it.
@Suite struct MailPageTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Posted")
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/mime")
        return Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    private func receive(_ raw: [UInt8], to recipients: [String] = ["inbox@mailroom.test"]) throws -> MessageID {
        let ids = try inbox.app.receiveMail(raw, from: "sender@example.test", to: recipients, peer: "127.0.0.1")
        return try #require(ids.first)
    }

    private func receive(_ text: String) throws -> MessageID {
        try receive(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    }

    @Test func anHTMLMailOpensOnItsHTMLWithTheSendersAddressesAndNoEditForm() throws {
        let id = try receive(try Self.fixture("alternative.eml"))
        let page = try inbox.get("/messages/\(id)")
        #expect(page.code == 200)
        #expect(page.html.content(of: "h1") == "Welcome to the project")
        #expect(page.html.contains("<iframe class=\"mail-html\" id=\"mail-html\""))
        #expect(page.html.contains("aria-current=\"page\" id=\"view-html\""))
        #expect(page.headers["Content-Security-Policy"]?.hasSuffix("; frame-src 'self'") == true)
        #expect(!page.html.contains("<p>Hello, plain reader.</p>"))
        #expect(page.html.contains("<dd>Scanner &lt;scanner@office.test&gt;</dd>"))
        #expect(page.html.contains("<dd>inbox@mailroom.test</dd>"))
        #expect(page.html.contains("Dec 1, 2026 at 09:30 UTC"))
        #expect(!page.html.contains("id=\"edit-message\""))
        #expect(inbox.subjects == ["Welcome to the project", "Posted"])
        #expect(inbox.message("Welcome to the project")?.author == "Scanner")
    }

    @Test func theTextIsOneClickAwayAndAnExplicitTextViewStaysText() throws {
        let id = try receive(try Self.fixture("alternative.eml"))
        let page = try inbox.get("/messages/\(id)")
        let text = try #require(page.html.tag(id: "view-text"))
        #expect(text.attribute("href") == "/messages/\(id)?keep=unread&amp;view=text")
        let shown = try inbox.get("/messages/\(id)?keep=unread&view=text")
        #expect(shown.html.contains("<p>Hello, plain reader.</p>"))
        #expect(shown.html.contains("aria-current=\"page\" id=\"view-text\""))
        #expect(!shown.html.contains("<iframe"))
    }

    @Test func aMailWithoutHTMLStillOpensOnItsText() throws {
        let id = try receive(try Self.fixture("nested-mixed.eml"))
        let page = try inbox.get("/messages/\(id)")
        #expect(page.html.contains("<p>Two files are attached.</p>"))
        #expect(page.html.contains("aria-current=\"page\" id=\"view-text\""))
        #expect(page.html.tag(id: "view-html") == nil)
        #expect(!page.html.contains("<iframe"))
    }

    @Test func theMessagePagesDatesAreMarkedFullSoTheScriptKeepsThemFull() throws {
        let id = try receive(try Self.fixture("alternative.eml"))
        let page = try inbox.get("/messages/\(id)").html
        #expect(page.occurrences(of: "data-style=\"full\"") == 2)
        #expect(try inbox.get("/messages/\(inbox.id("Posted"))").html.contains("data-style=\"full\">Nov 28, 2025 at 14:05 UTC"))
        #expect(!(try inbox.get("/mailboxes/inbox").html.contains("data-style")))
    }

    // MARK: Rows

    /// A routed mail's row names the address that routed it, its size and its paperclip.
    @Test func aMailedRowShowsTheRoutingRecipientTheSizeAndAnAttachmentMark() throws {
        #expect(try inbox.post("/mailboxes", [("action", "create"), ("name", "Scans")]).code == 303)
        #expect(try inbox.post("/mailboxes", [("action", "addresses"), ("mailbox", "100"), ("addresses", "*@scan.test")]).code == 303)
        let raw = try Self.fixture("nested-mixed.eml")
        let id = try receive(raw, to: ["someone@else.test", "Desk@Scan.test"])
        let row = try #require(try inbox.get("/mailboxes/100").html.row(id))
        let details = try #require(row.element(containing: "class=\"row-details\""))
        #expect(details.contains("<span class=\"recipient\">To Desk@Scan.test</span>"))
        #expect(raw.count == 3_890)
        #expect(details.contains("<span class=\"size\">3.8 KB</span>"))
        #expect(row.contains("<span class=\"clip\" role=\"img\" aria-label=\"Has attachments\" title=\"Has attachments\">📎</span>"))
        // After the sender and the subject, which a phone shows first.
        let order = ["class=\"author\"", "class=\"subject\"", "class=\"row-details\""].map { row.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! })
    }

    @Test func anUnroutedMailsRowNamesTheFirstToAddressAndAPictureInTheHTMLIsNoAttachment() throws {
        let id = try receive(Array("""
            From: News <news@letters.test>\r
            To: "Ops, Team" <ops@team.test>, other@team.test\r
            Subject: Logo only\r
            MIME-Version: 1.0\r
            Content-Type: multipart/related; boundary="r"\r
            \r
            --r\r
            Content-Type: text/html\r
            \r
            <p><img src="cid:logo@letters.test"> Hello</p>\r
            --r\r
            Content-Type: image/png\r
            Content-ID: <logo@letters.test>\r
            Content-Transfer-Encoding: base64\r
            \r
            iVBORw0KGgo=\r
            --r--\r

            """.utf8), to: ["bcc-copy@elsewhere.test"])
        let row = try #require(try inbox.get("/mailboxes/inbox").html.row(id))
        #expect(row.contains("<span class=\"recipient\">To ops@team.test</span>"))
        #expect(row.contains("<span class=\"size\">"))
        #expect(!row.contains("class=\"clip\""))
        #expect(!row.contains("Has attachments"))
    }

    @Test func aMailToTheInboxByNameNamesThatAddress() throws {
        let id = try receive(try Self.fixture("alternative.eml"), to: ["first@elsewhere.test", "inbox@mailroom.test"])
        let row = try #require(try inbox.get("/mailboxes/inbox").html.row(id))
        #expect(row.contains("<span class=\"recipient\">To inbox@mailroom.test</span>"))
        #expect(row.contains("<span class=\"size\">578 bytes</span>"))
        #expect(!row.contains("class=\"clip\""))
    }

    @Test func aPostedRowShowsNoMailDetailsAndEditingRowsKeepTheirCheckboxes() throws {
        let id = try receive(try Self.fixture("nested-mixed.eml"))
        let posted = try #require(try inbox.get("/mailboxes/inbox").html.row(inbox.id("Posted")))
        #expect(!posted.contains("row-details"))
        #expect(!posted.contains("class=\"size\""))
        let editing = try inbox.get("/mailboxes/inbox?mode=active").html
        let row = try #require(editing.row(id))
        #expect(row.contains("type=\"checkbox\" name=\"selected\" value=\"\(id)\""))
        #expect(row.contains("class=\"row-details\""))
        #expect(!row.contains("class=\"row-link\""))
        #expect(!(try #require(editing.row(inbox.id("Posted")))).contains("row-details"))
    }

    // MARK: Inline parts and remote content

    @Test func aPictureTheHTMLShowsIsNotListedButARealPDFIs() throws {
        let id = try receive("""
            From: News <news@letters.test>
            Subject: Logo and report
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="m"

            --m
            Content-Type: multipart/related; boundary="r"

            --r
            Content-Type: text/html

            <p><img src="cid:logo@letters.test"> See the report.</p>
            --r
            Content-Type: image/png
            Content-ID: <logo@letters.test>
            Content-Transfer-Encoding: base64

            iVBORw0KGgo=
            --r--
            --m
            Content-Type: application/pdf
            Content-Disposition: attachment; filename="report.pdf"
            Content-Transfer-Encoding: base64

            JVBERi0xLjQK
            --m--
            """)
        let page = try inbox.get("/messages/\(id)").html
        #expect(page.contains("<h2 id=\"attachments-title\">1 Attachment</h2>"))
        #expect(page.contains(">report.pdf</a>"))
        #expect(!page.contains("id=\"attachment-0\""))
        // The picture stays reachable, for the HTML that shows it.
        #expect(try inbox.get("/messages/\(id)/parts/0").code == 200)
        #expect(try inbox.get("/messages/\(id)/html").html.contains("<img src=\"/messages/\(id)/parts/0?v="))
        #expect(try #require(try inbox.get("/mailboxes/inbox").html.row(id)).contains("class=\"clip\""))
    }

    @Test func anInlinePictureAloneMakesNoAttachmentList() throws {
        let id = try receive(try Self.fixture("inline-cid.eml"))
        for view in ["", "?view=text"] {
            let page = try inbox.get("/messages/\(id)\(view)").html
            #expect(!page.contains("id=\"attachments\""))
        }
        #expect(try inbox.get("/messages/\(id)/parts/0").code == 200)
    }

    @Test(arguments: [
        "<img src=\"https://tracker.test/p.gif\">", "<IMG SRC='http://tracker.test/p.gif'>",
        "<img src=//cdn.test/p.gif>", "<img src=\"cid:x\" srcset=\"a.png 1x, https://cdn.test/b.png 2x\">",
        "<td background=\"https://cdn.test/bg.png\">", "<video poster=\"http://cdn.test/v.jpg\"></video>",
        "<div style=\"background: url('https://cdn.test/bg.png')\">", "<style>p { background: url(//cdn.test/x.png) }</style>",
    ])
    func remoteContentIsBlockedAndSaidToBe(html: String) throws {
        let id = try receive("Subject: Remote\nContent-Type: text/html\n\n<p>Hi</p>\(html)\n")
        let page = try inbox.get("/messages/\(id)").html
        let notice = try #require(page.element(containing: "id=\"remote-notice\""))
        #expect(page.contains("Remote images in this message were blocked."))
        #expect(notice.contains("class=\"remote-notice\""))
        let load = try #require(page.tag(id: "load-remote-images"))
        #expect(load.attribute("href") == "/messages/\(id)?keep=unread&amp;view=html&amp;images=remote")
        #expect(page.contains("src=\"/messages/\(id)/html?v="))
    }

    @Test(arguments: [
        "<p>No pictures</p>", "<a href=\"https://example.test/\">a link is followed only on a click</a>",
        "<img src=\"cid:logo@x.test\"><img src=\"data:image/png;base64,iVBO\">", "<p>see https://example.test/ and src=here</p>",
    ])
    func withNothingRemoteThereIsNoNotice(html: String) throws {
        let id = try receive("Subject: Local\nContent-Type: text/html\n\n\(html)\n")
        let page = try inbox.get("/messages/\(id)").html
        #expect(page.contains("<iframe"))
        #expect(!page.contains("remote-notice"))
        #expect(!page.contains("were blocked"))
    }

    @Test func loadRemoteImagesShowsThisMessagesImagesAndStillNoScript() throws {
        let id = try receive("Subject: Remote\nContent-Type: text/html\n\n<img src=\"https://tracker.test/p.gif\"><script>alert(1)</script>\n")
        let page = try inbox.get("/messages/\(id)?keep=unread&view=html&images=remote")
        #expect(page.html.contains("&amp;images=remote\" sandbox=\"allow-popups allow-popups-to-escape-sandbox\""))
        #expect(page.html.contains("src=\"/messages/\(id)/html?v="))
        #expect(page.html.contains("Remote images in this message are shown."))
        #expect(page.html.tag(id: "block-remote-images")?.attribute("href") == "/messages/\(id)?keep=unread&amp;view=html")
        #expect(page.html.tag(id: "load-remote-images") == nil)

        let host = Headers([("Host", "mailroom.test:8080")])
        let frame = try inbox.respond(.get, "/messages/\(id)/html?images=remote", headers: host)
        let policy = try #require(frame.headers["Content-Security-Policy"])
        #expect(policy.contains("img-src http://mailroom.test:8080/messages/\(id)/parts/ https: http:;"))
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("form-action 'none'"))
        #expect(policy.contains("sandbox allow-popups allow-popups-to-escape-sandbox"))
        #expect(!policy.contains("script-src"))
        #expect(!policy.contains("frame-src"))
        #expect(!policy.contains("allow-scripts"))
        #expect(frame.html.contains("<meta name=\"referrer\" content=\"no-referrer\">"))

        // Never by default, and not for the next message either.
        let blocked = try inbox.respond(.get, "/messages/\(id)/html", headers: host)
        #expect(blocked.headers["Content-Security-Policy"]?.contains("https:") == false)
        let other = try receive("Subject: Other\nContent-Type: text/html\n\n<img src=\"https://tracker.test/q.gif\">\n")
        #expect(try inbox.get("/messages/\(other)").html.contains("src=\"/messages/\(other)/html?v="))
        #expect(try !inbox.get("/messages/\(other)").html.contains("images=remote\" sandbox"))
    }

    @Test(arguments: [
        ("subject-utf-8.eml", "Grüße aus Köln 👋"), ("subject-iso-8859-1.eml", "Café crème à emporter"),
        ("subject-shift-jis.eml", "会議の資料を送ります"), ("subject-koi8-r.eml", "Привет из Москвы"),
        ("8bit-headers.eml", "Grüße ohne Kodierung"), ("broken-boundary.eml", "Broken boundary"),
        ("missing-charset.eml", "No charset"), ("long-line.eml", "One long line"), ("html-only.eml", "Your invoice"),
        ("nested-mixed.eml", "Scan from the copier"), ("inline-cid.eml", "Newsletter with a logo"),
        ("scanner-pdf-no-disposition.eml", "Scan"),
    ])
    func everyCorpusFileIsShownWithItsDecodedSubject(file: String, subject: String) throws {
        let id = try receive(try Self.fixture(file))
        for view in ["", "?view=html", "?view=headers"] {
            let page = try inbox.get("/messages/\(id)\(view)")
            #expect(page.code == 200)
            #expect(page.html.content(of: "h1") == subject.htmlEscaped)
        }
        #expect(try inbox.get("/messages/\(id)/raw").body == (try Self.fixture(file)))
    }

    @Test func theHTMLIsAFramedDocumentWithAPolicyThatAllowsOnlyItsOwnImages() throws {
        let id = try receive(try Self.fixture("inline-cid.eml"))
        let page = try inbox.get("/messages/\(id)?view=html")
        #expect(page.html.contains("<iframe class=\"mail-html\" id=\"mail-html\""))
        #expect(page.html.contains("src=\"/messages/\(id)/html?v="))
        #expect(page.html.contains("\" sandbox=\"allow-popups allow-popups-to-escape-sandbox\""))
        #expect(page.headers["Content-Security-Policy"]?.hasSuffix("; frame-src 'self'") == true)
        #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)

        let frame = try inbox.respond(.get, "/messages/\(id)/html", headers: Headers([("Host", "mailroom.test:8080")]))
        #expect(frame.code == 200)
        let policy = try #require(frame.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("img-src http://mailroom.test:8080/messages/\(id)/parts/;"))
        #expect(policy.contains("form-action 'none'"))
        #expect(policy.contains("sandbox allow-popups allow-popups-to-escape-sandbox"))
        #expect(!policy.contains("script-src"))
        #expect(frame.headers["X-Frame-Options"] == "SAMEORIGIN")
        #expect(frame.headers.values(for: "Content-Security-Policy").count == 1)
        #expect(frame.html.hasPrefix("<!DOCTYPE html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\"><base target=\"_blank\">"))
        #expect(frame.html.contains("<img src=\"/messages/\(id)/parts/0?v="))
        #expect(!frame.html.contains("cid:"))
    }

    @Test func aHostHeaderThatIsNotAPlainNameNeverReachesThePolicy() throws {
        let id = try receive(try Self.fixture("inline-cid.eml"))
        let frame = try inbox.respond(.get, "/messages/\(id)/html", headers: Headers([("Host", "x.test; script-src *")]))
        let policy = try #require(frame.headers["Content-Security-Policy"])
        #expect(policy.contains("img-src 'self';"))
        #expect(!policy.contains("script-src"))
    }

    @Test func hostileHTMLIsServedOnlyInsideItsSandboxAndARefreshIsDisarmed() throws {
        let id = try receive("""
            From: Mallory <m@evil.test>
            Subject: <script>alert(1)</script>
            Content-Type: text/html; charset=utf-8

            <meta http-equiv="refresh" content="0;url=http://evil.test/"><script>alert(2)</script><img src=x onerror=alert(3)>
            """)
        let page = try inbox.get("/messages/\(id)")
        #expect(page.html.content(of: "h1") == "&lt;script&gt;alert(1)&lt;/script&gt;")
        #expect(!page.html.replacingOccurrences(of: "<script src=\"/app.js\" defer></script>", with: "").contains("<script"))
        #expect(!page.html.contains("onerror"))
        let frame = try inbox.get("/messages/\(id)/html")
        #expect(!frame.html.lowercased().contains("http-equiv"))
        #expect(frame.headers["Content-Security-Policy"]?.contains("img-src 'self'") == true)
    }

    @Test func attachmentsAreListedWithSizesAndDownloadNeverShownInPlace() throws {
        let id = try receive(try Self.fixture("nested-mixed.eml"))
        let page = try inbox.get("/messages/\(id)")
        #expect(page.html.contains("<h2 id=\"attachments-title\">2 Attachments</h2>"))
        #expect(page.html.contains("<a href=\"/messages/\(id)/parts/0?v="))
        #expect(page.html.contains("\" id=\"attachment-0\">scan-0001.pdf</a>"))
        #expect(page.html.contains("application/pdf, 2 KB"))
        let pdf = try inbox.get("/messages/\(id)/parts/0")
        #expect(pdf.code == 200)
        #expect(pdf.contentType == "application/pdf")
        #expect(pdf.headers["Content-Disposition"] == "attachment; filename=\"scan-0001.pdf\"; filename*=UTF-8''scan-0001.pdf")
        #expect(pdf.headers["X-Content-Type-Options"] == "nosniff")
        #expect(pdf.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
        #expect(pdf.body.count == 2_000)
        #expect(try inbox.get("/messages/\(id)/parts/2").code == 404)
        #expect(try inbox.get("/messages/\(id)/parts/-1").code == 404)
        #expect(try inbox.get("/messages/\(id)/parts/01").code == 404)
        #expect(try inbox.post("/messages/\(id)/parts/0", []).code == 405)
    }

    @Test func anHTMLAttachmentDownloadsAsBytesNotAsAPage() throws {
        let id = try receive("""
            From: a@b.test
            Subject: Page attached
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="b"

            --b
            Content-Type: text/plain

            See attached.
            --b
            Content-Type: text/html
            Content-Disposition: attachment; filename="p\u{00e4}ge \\"1\\".html"

            <script>alert(1)</script>
            --b--
            """)
        let part = try inbox.get("/messages/\(id)/parts/0")
        #expect(part.contentType == "application/octet-stream")
        #expect(part.headers["Content-Disposition"] == "attachment; filename=\"p_ge _1_.html\"; filename*=UTF-8''p%C3%A4ge%20%221%22.html")
    }

    @Test func theHeadersViewShowsTheHeaderBlockAsReceived() throws {
        let id = try receive(try Self.fixture("subject-koi8-r.eml"))
        let page = try inbox.get("/messages/\(id)?view=headers")
        #expect(page.html.contains("<pre class=\"mail-source\" id=\"mail-headers\""))
        #expect(page.html.contains("Subject: =?KOI8-R?B?"))
        #expect(!page.html.contains("A subject in KOI8-R."))
        #expect(page.html.contains("aria-current=\"page\" id=\"view-headers\""))
    }

    @Test func aPostedMessageHasNoMailAddresses() throws {
        let id = inbox.id("Posted")
        #expect(try inbox.get("/messages/\(id)/raw").code == 404)
        #expect(try inbox.get("/messages/\(id)/html").code == 404)
        #expect(try inbox.get("/messages/\(id)/parts/0").code == 404)
        #expect(try inbox.get("/messages/\(id)").html.contains("id=\"edit-message\""))
    }

    @Test func mailThatGMimeCannotReadIsStillKept() throws {
        let id = try receive(Array("\u{0}\u{1}garbage without headers".utf8))
        let page = try inbox.get("/messages/\(id)")
        #expect(page.code == 200)
        #expect(try inbox.get("/messages/\(id)/raw").body == Array("\u{0}\u{1}garbage without headers".utf8))
    }

    @Test func aMailboxsAddressesAreSetOnTheMailboxesPageAndRouteMail() throws {
        let created = try inbox.post("/mailboxes", [("action", "create"), ("name", "Scans")])
        #expect(created.code == 303)
        let saved = try inbox.post("/mailboxes", [("action", "addresses"), ("mailbox", "100"),
                                                  ("addresses", "Scanner@Office.test, *@scan.test")])
        #expect(saved.location == "/mailboxes?done=routed")
        let page = try inbox.get("/mailboxes")
        #expect(page.html.contains("value=\"*@scan.test, scanner@office.test\""))
        _ = try receive(Array("Subject: Routed\r\n\r\nx\r\n".utf8), to: ["a@scan.test", "other@example.test"])
        #expect(inbox.subjects(in: MailboxID(rawValue: 100)) == ["Routed"])
        #expect(!inbox.subjects.contains("Routed"))

        let refused = try inbox.post("/mailboxes", [("action", "addresses"), ("mailbox", "100"), ("addresses", "ok@x.test, not an address")])
        #expect(refused.code == 422)
        #expect(refused.html.contains("value=\"ok@x.test, not an address\""))
        #expect(refused.html.contains("“not” is not an address"))
        #expect(try inbox.get("/mailboxes").html.contains("value=\"*@scan.test, scanner@office.test\""))
        #expect(try inbox.post("/mailboxes", [("action", "addresses"), ("mailbox", "trash"), ("addresses", "a@b.test")]).code == 404)
    }
}

private extension String {
    var htmlEscaped: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
