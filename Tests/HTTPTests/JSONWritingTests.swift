import HTTP
import Testing

/// What the JSON writer escapes, byte for byte: what JSON requires, `<`, and the characters a
/// terminal or a script would act on; everything else passes through as UTF-8.
struct JSONWritingTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("say \"hi\"", #""say \"hi\"""#),
        ("back\\slash", #""back\\slash""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("<script>", #""\u003cscript>""#),
        ("bell\u{07}del\u{7F}", #""bell\u0007del\u007f""#),
        ("c1\u{85}end", #""c1\u0085end""#),
        ("sep\u{2028}para\u{2029}", #""sep\u2028para\u2029""#),
        ("été 👋 日本", "\"été 👋 日本\""),
        // UTF-8 C2 A9 and E2 82 AC: lead bytes the writer looks at twice, passed through.
        ("© and €", "\"© and €\""),
    ])
    func stringsAreEscapedAsTheyMustBe(text: String, written: String) {
        #expect(JSON.string(text).text == written)
        #expect(JSON.string(text).bytes == Array(written.utf8))
    }

    @Test func whatIsWrittenReadsBack() throws {
        let value = JSON.object([("a", .array([.int(1), .null, .bool(true)])), ("b <c>", .string("x\u{2028}y\u{85}z\u{1}"))])
        #expect(try JSON.parse(value.bytes) == value)
    }
}
