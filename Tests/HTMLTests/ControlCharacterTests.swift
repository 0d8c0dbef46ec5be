import HTML
import Testing

/// Controls in text and attribute values show as symbols, never as the raw bytes HTML forbids.
struct ControlCharacterTests {
    @Test(arguments: [
        ("\u{1b}[31mred\u{1b}[0m", "\u{241b}[31mred\u{241b}[0m"),
        ("a\u{0}b", "a\u{2400}b"),
        ("bell\u{7}", "bell\u{2407}"),
        ("form\u{c}feed", "form\u{240c}feed"),
        ("\u{1}\u{1f}", "\u{2401}\u{241f}"),
        ("del\u{7f}", "del\u{2421}"),
        ("c1\u{80}\u{85}\u{9b}\u{9f}", "c1\u{fffd}\u{fffd}\u{fffd}\u{fffd}"),
        ("<\u{1b}>", "&lt;\u{241b}&gt;"),
    ])
    func controlsBecomeTheirPictures(input: String, expected: String) {
        #expect(Escaping.text(input) == expected)
        #expect(Escaping.attributeValue(input) == expected)
        #expect(Node.text(input).html == expected)
    }

    /// Swift refuses noncharacters in a literal, so these are made from their numbers.
    @Test(arguments: [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF] as [UInt32])
    func noncharactersBecomeTheReplacementCharacter(code: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let input = "non" + String(Character(scalar)) + "char"
        #expect(Escaping.text(input) == "non\u{fffd}char")
        #expect(Escaping.attributeValue(input) == "non\u{fffd}char")
    }

    @Test(arguments: [
        "tab\there", "line\nbreak", "crlf\r\n", "caf\u{e9} \u{a0}\u{a9}\u{fdcf}\u{fdf0}\u{fffd}\u{fffc}\u{1f600}\u{10fffd}", "\u{2400} is a picture already",
    ])
    func whitespaceAndOrdinaryCharactersStayAsTheyAre(input: String) {
        #expect(Escaping.text(input) == input)
        #expect(Escaping.attributeValue(input) == input)
    }

    @Test func noControlByteIsLeftInARenderedPage() {
        let everything = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "\u{80}\u{9f}"
        let html = Array(p(.title(everything)) { everything }.html.utf8)
        #expect(!html.contains { ($0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0)) || $0 == 0x7F })
        #expect(!String(decoding: html, as: UTF8.self).unicodeScalars.contains { (0x80...0x9F).contains($0.value) })
    }
}
