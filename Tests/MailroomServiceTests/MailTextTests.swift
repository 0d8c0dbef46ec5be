@testable import MailroomService
import Testing

/// The text kept of a mailed message: its lines ended by LF alone, no line ends at its end.
@Suite struct MailTextTests {
    /// The rule written plainly, one character at a time.
    private func linesReadPlainly(_ text: String) -> String {
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if scalar == "\r" {
                if scalars.first == "\n" { scalars.removeFirst() }
                result.unicodeScalars.append("\n")
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        while result.unicodeScalars.last == "\n" { result.unicodeScalars.removeLast() }
        return result
    }

    @Test func lineEndsBecomeLFAndTheLastOnesGo() {
        #expect(Mailroom.lines("One\r\nTwo\rThree\nFour\r\n\r\n") == "One\nTwo\nThree\nFour")
        #expect(Mailroom.lines("\r\n\r\n") == "")
        #expect(Mailroom.lines("") == "")
        #expect(Mailroom.lines("\r\nLeading kept") == "\nLeading kept")
        #expect(Mailroom.lines("Grüße\r\n日本語\r") == "Grüße\n日本語")
        let long = String(repeating: "x", count: 100_000)
        #expect(Mailroom.lines(long + "\r\n") == long)
    }

    @Test func anyMixOfLineEndsReadsAsThePlainRuleReadsIt() {
        var random = SystemRandomNumberGenerator()
        let pieces = ["\r", "\n", "\r\n", "a", "bc", "é", "日", " "]
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...40, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
            #expect(Mailroom.lines(text) == linesReadPlainly(text), "\(Array(text.utf8))")
        }
    }
}
