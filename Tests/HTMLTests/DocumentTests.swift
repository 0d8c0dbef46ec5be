import HTML
import Testing

/// A whole page, as the layouts build it.
struct DocumentTests {
    private func page(title pageTitle: String = "Inbox — Mailroom", text: String = "Hello") -> Node {
        html(.lang("en")) {
            head {
                meta(Attribute("charset", "utf-8"))
                title(pageTitle)
            }
            body(.class("list-page")) {
                h1 { text }
            }
        }
    }

    @Test func aDocumentStartsWithTheDoctype() {
        #expect(page().html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
    }

    @Test func aDocumentIsOneWellNestedTree() {
        #expect(page().html == """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Inbox — Mailroom</title></head>\
            <body class="list-page"><h1>Hello</h1></body></html>
            """)
    }

    @Test func aDocumentsBytesAreItsUTF8Markup() {
        let node = page(text: "Grüße ✉️")
        #expect(node.bytes == Array(node.html.utf8))
        #expect(node.html.contains("<h1>Grüße ✉️</h1>"))
    }

    @Test func aHostileTitleStaysInsideTheTitleElement() {
        let markup = page(title: "</title><script>alert(\"x\")</script>").html
        #expect(markup.contains("<title>&lt;/title&gt;&lt;script&gt;alert(\"x\")&lt;/script&gt;</title>"))
        #expect(!markup.contains("<script"))
    }
}
