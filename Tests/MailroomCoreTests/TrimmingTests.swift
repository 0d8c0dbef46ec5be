import Testing
@testable import MailroomCore

/// Whitespace dropped from the ends of what people type, and only from the ends.
struct TrimmingTests {
    @Test func bothEndsLoseTheirWhitespaceAndTheMiddleKeepsIt() {
        #expect("  paper  jam \n".trimmed == "paper  jam")
        #expect("paper jam".trimmed == "paper jam")
        #expect("\t\u{00A0}café\u{2003}".trimmed == "café")
        #expect(" x ".trimmed == "x")
        #expect("   ".trimmed == "")
        #expect("".trimmed == "")
        // A combining mark stays with its letter, at either end.
        #expect(" e\u{0301} ".trimmed == "e\u{0301}")
    }

    @Test func onlyTheEndLosesItsWhitespace() {
        #expect("  line \t\n".trimmedTrailing == "  line")
        #expect("line".trimmedTrailing == "line")
        #expect(" \n ".trimmedTrailing == "")
        #expect("".trimmedTrailing == "")
    }
}
