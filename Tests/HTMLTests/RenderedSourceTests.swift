import HTML
import Testing

/// Markup kept elsewhere and written straight into the page where its node stands.
struct RenderedSourceTests {
    /// Two pieces rendered earlier, then a third, as a page's cached and fresh rows are.
    struct Rows: RenderedSource {
        let pieces: [RenderedHTML]
        var count: Int { pieces.reduce(0) { $0 + $1.bytes.count } }
        func write(to writer: inout RenderedWriter) {
            for piece in pieces { piece.write(to: &writer) }
        }
    }

    @Test func piecesAreWrittenInOrderWhereTheNodeStands() {
        let rows = Rows(pieces: [
            RenderedHTML(li { "One & two" }), RenderedHTML(li(.class("unread")) { "<b>" }), RenderedHTML(li {}),
        ])
        let node = ul(.id("messages")) { Node.rendered(from: rows) }
        let expected = "<ul id=\"messages\"><li>One &amp; two</li><li class=\"unread\">&lt;b&gt;</li><li></li></ul>"
        #expect(node.html == expected)
        #expect(rows.count == "<li>One &amp; two</li><li class=\"unread\">&lt;b&gt;</li><li></li>".utf8.count)
    }

    @Test func whatComesBeforeAndAfterTheSourceStaysInPlace() {
        let node = div {
            p { "Before" }
            Node.rendered(from: Rows(pieces: [RenderedHTML(span { "Kept" })]))
            p { "After" }
        }
        #expect(node.html == "<div><p>Before</p><span>Kept</span><p>After</p></div>")
        // Rendered twice, the same bytes: writing does not use the pieces up.
        #expect(node.bytes == node.bytes)
    }

    @Test func anEmptySourceWritesNothing() {
        #expect(ul { Node.rendered(from: Rows(pieces: [])) }.html == "<ul></ul>")
    }
}
