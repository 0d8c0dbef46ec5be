import HTML
import Testing

/// What text content and quoted attribute values become, character by character.
struct EscapingTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("", ""),
        ("a & b", "a &amp; b"),
        ("1 < 2", "1 &lt; 2"),
        ("2 > 1", "2 &gt; 1"),
        ("&amp;", "&amp;amp;"),
        ("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;"),
        // Quotes are harmless between tags, so text leaves them alone.
        ("say \"hi\" 'there'", "say \"hi\" 'there'"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("</textarea><script>x</script>", "&lt;/textarea&gt;&lt;script&gt;x&lt;/script&gt;"),
        ("</title><script>x</script>", "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;"),
        ("<!-- comment -->", "&lt;!-- comment --&gt;"),
    ])
    func textEscapesAmpersandAndAngleBrackets(input: String, expected: String) {
        #expect(Escaping.text(input) == expected)
        #expect(Node.text(input).html == expected)
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("", ""),
        ("a & b", "a &amp; b"),
        ("say \"hi\"", "say &quot;hi&quot;"),
        ("it's", "it&#39;s"),
        ("<>", "&lt;&gt;"),
        ("\"><script>alert(1)</script>", "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("' onmouseover='x", "&#39; onmouseover=&#39;x"),
        ("\" onfocus=\"x\" autofocus=\"", "&quot; onfocus=&quot;x&quot; autofocus=&quot;"),
        ("javascript&colon;alert(1)", "javascript&amp;colon;alert(1)"),
    ])
    func attributeValuesEscapeAmpersandQuotesAndAngleBrackets(value: String, expected: String) {
        #expect(Escaping.attributeValue(value) == expected)
        #expect(input(.value(value)).html == "<input value=\"\(expected)\">")
    }

    static let breakOutAttempts = [
        "\"><script>alert(1)</script>",
        "' onmouseover='x",
        "</textarea><script>alert(1)</script>",
        "</title><script>alert(1)</script>",
        "\"'><img src=x onerror=alert(1)>",
    ]

    @Test(arguments: breakOutAttempts)
    func anAttributeValueNeverLeavesItsQuotes(attack: String) {
        let markup = div(.class(attack), .aria("label", attack), .data("note", attack)) {}.html
        #expect(!markup.contains("<script"))
        #expect(!markup.contains("<img"))
        // Exactly the six quotes that delimit the three values, and one tag opened and closed.
        #expect(markup.filter { $0 == "\"" }.count == 6)
        #expect(markup.filter { $0 == "'" }.isEmpty)
        #expect(markup.filter { $0 == "<" }.count == 2)
        #expect(markup.filter { $0 == ">" }.count == 2)
    }

    @Test(arguments: breakOutAttempts)
    func textNeverOpensATagInTitleTextareaOrBody(attack: String) {
        for node in [title(attack), textarea(.name("body"), text: attack), p { attack }] {
            let markup = node.html
            #expect(!markup.contains("<script"))
            #expect(!markup.contains("<img"))
            #expect(markup.filter { $0 == "<" }.count == 2, "only the element's own tags in \(markup)")
        }
    }

    @Test func aTitleCannotBeClosedEarly() {
        #expect(title("</title><script>alert(1)</script>").html
            == "<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>")
    }

    @Test func aTextareaCannotBeClosedEarly() {
        #expect(textarea(.name("body"), text: "</textarea><b>x</b>").html
            == "<textarea name=\"body\">\n&lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;</textarea>")
    }

    @Test func aStringLiteralNodeIsEscapedText() {
        let node: Node = "<i>&</i>"
        #expect(node.html == "&lt;i&gt;&amp;&lt;/i&gt;")
    }

    @Test func trustedMarkupIsWrittenAsIs() {
        #expect(Node.trusted("<hr>").html == "<hr>")
    }

    @Test(arguments: [
        "café", "naïve — “quoted” ‘single’", "日本語のテキスト", "emoji 📬✉️", "Ελληνικά", "\u{0301}combining",
    ])
    func utf8PassesThroughUnchanged(text: String) {
        #expect(Escaping.text(text) == text)
        #expect(Escaping.attributeValue(text) == text)
        #expect(p { text }.html == "<p>\(text)</p>")
        #expect(p { text }.bytes == Array("<p>\(text)</p>".utf8))
    }

    @Test func utf8NextToEscapedCharactersIsKept() {
        #expect(Escaping.text("é<ü>&ß") == "é&lt;ü&gt;&amp;ß")
        #expect(Escaping.attributeValue("“é”'\"") == "“é”&#39;&quot;")
    }
}
