@testable import SMTP
import TestSupport
import Testing

/// The fuzz target, run on a fixed-seed stream of mutated sessions inside `make test`;
/// `make fuzz` runs it under libFuzzer for as long as you like.
@Suite struct RandomSessionTests {
    static let seeds: [[UInt8]] = [
        "EHLO a\r\nMAIL FROM:<a@b> SIZE=10\r\nRCPT TO:<c@d>\r\nDATA\r\nhi\r\n..x\r\n.\r\nQUIT\r\n",
        "HELO a\r\nMAIL FROM:<>\r\nRCPT TO:<c@d>\r\nRCPT TO:<e@f>\r\nDATA\r\nx\n.\ny\r\n.\r\nRSET\r\n",
        "EHLO a\r\nAUTH PLAIN AHUAcA==\r\nAUTH LOGIN\r\ndQ==\r\ncA==\r\nSTARTTLS\r\nNOOP\r\n",
    ].map { Array($0.utf8) }

    static let alphabet: [UInt8] = Array("<>:@.= \r\n\r\n.\r\nMAIL RCPT DATA AUTH SIZE=9".utf8) + [0, 0x80, 0xFF]

    @Test func sessionsSurviveMutatedInputInRandomPieces() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<20_000 {
            var bytes = random.pick(Self.seeds)
            for _ in 0..<random.below(6) + 1 {
                let index = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0: bytes.insert(random.pick(Self.alphabet), at: index)
                case 1: if index < bytes.count { bytes.remove(at: index) }
                default: if index < bytes.count { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
                }
            }
            FuzzTargets.run(bytes, pieces: random.below(5) + 1)
        }
    }
}
