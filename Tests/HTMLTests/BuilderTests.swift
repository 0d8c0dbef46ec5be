import HTML
import Testing

/// The result builder: conditionals, loops and optionals inside element bodies.
struct BuilderTests {
    @Test(arguments: [true, false])
    func anIfWithoutElseWritesNothingWhenFalse(condition: Bool) {
        let node = div {
            "a"
            if condition { span { "b" } }
            "c"
        }
        #expect(node.html == (condition ? "<div>a<span>b</span>c</div>" : "<div>ac</div>"))
    }

    @Test(arguments: [true, false])
    func ifElseWritesExactlyOneBranch(isEditing: Bool) {
        let node = header {
            if isEditing {
                a(.id("done")) { "Done" }
            } else {
                a(.id("edit")) { "Edit" }
            }
        }
        #expect(node.html == (isEditing
            ? "<header><a id=\"done\">Done</a></header>"
            : "<header><a id=\"edit\">Edit</a></header>"))
    }

    @Test func elseIfChainsPickTheFirstMatch() {
        func badge(_ count: Int) -> Node {
            span {
                if count == 0 {
                    "none"
                } else if count == 1 {
                    "one"
                } else {
                    "\(count)"
                }
            }
        }
        #expect(badge(0).html == "<span>none</span>")
        #expect(badge(1).html == "<span>one</span>")
        #expect(badge(7).html == "<span>7</span>")
    }

    @Test func forWritesOneNodePerElementInOrder() {
        let node = ul {
            for name in ["A", "B & C", "D"] {
                li { name }
            }
        }
        #expect(node.html == "<ul><li>A</li><li>B &amp; C</li><li>D</li></ul>")
    }

    @Test func forOverNothingWritesNothing() {
        let names: [String] = []
        #expect(ul { for name in names { li { name } } }.html == "<ul></ul>")
    }

    @Test(arguments: [String?.some("Notice <b>"), nil])
    func ifLetWritesAnOptionalOnlyWhenPresent(notice: String?) {
        let node = main {
            if let notice {
                p(.class("notice")) { notice }
            }
            h1 { "Inbox" }
        }
        if notice == nil {
            #expect(node.html == "<main><h1>Inbox</h1></main>")
        } else {
            #expect(node.html == "<main><p class=\"notice\">Notice &lt;b&gt;</p><h1>Inbox</h1></main>")
        }
    }

    @Test func switchPicksOneCase() {
        enum Mode { case inactive, active }
        func bar(_ mode: Mode) -> Node {
            nav {
                switch mode {
                case .inactive: "Edit"
                case .active: "Done"
                }
            }
        }
        #expect(bar(.inactive).html == "<nav>Edit</nav>")
        #expect(bar(.active).html == "<nav>Done</nav>")
    }

    @Test func arraysOfNodesAndFragmentsAreFlattened() {
        let items: [Node] = [li { "1" }, li { "2" }]
        #expect(ul { items }.html == "<ul><li>1</li><li>2</li></ul>")
        #expect(Node.fragment([.text("a"), .empty, .text("<")]).html == "a&lt;")
    }

    @Test func loopsNestInsideConditionals() {
        let rows = ["x", "y"]
        let node = section {
            if !rows.isEmpty {
                for (offset, row) in rows.enumerated() {
                    p(.data("offset", String(offset))) { row }
                }
            }
        }
        #expect(node.html == "<section><p data-offset=\"0\">x</p><p data-offset=\"1\">y</p></section>")
    }

    @Test func renderingAppendsToAnExistingBuffer() {
        var buffer = Array("prefix:".utf8)
        strong { "<" }.render(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "prefix:<strong>&lt;</strong>")
    }
}
