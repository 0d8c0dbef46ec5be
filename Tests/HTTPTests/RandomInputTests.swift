import HTTP
import TestSupport
import Testing

/// The fuzz targets, run on a fixed-seed stream of random and near-valid inputs inside `make test`.
/// `make fuzz` runs the same targets under libFuzzer for as long as you like.
@Suite struct RandomInputTests {
    /// Bytes that matter to the parsers, so random inputs hit their edges often.
    static let alphabet: [UInt8] = Array("%+=&/.\\?#;:0123456789abcdefABCDEF xyzGETPOST HTTP/1.1\r\n".utf8)
        + [0, 0x7F, 0x80, 0xC3, 0xA9, 0xE2, 0xFF]

    /// Requests that are nearly right, so the parser's later stages are reached often.
    static let requestSeeds: [[UInt8]] = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST /mailboxes/inbox HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nx=1&y",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    ].map { Array($0.utf8) }

    @Test func theRequestParserSurvivesMutatedRequests() {
        var random = SeededGenerator(seed: 7)
        var inputs = 0
        for _ in 0..<100_000 {
            var bytes = Self.requestSeeds[Int.random(in: 0..<Self.requestSeeds.count, using: &random)]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes.insert(Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)], at: index)
                case 1: if index < bytes.count { bytes.remove(at: index) }
                default: if index < bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &random) }
                }
            }
            FuzzTargets.run(bytes)
            inputs += 1
        }
        #expect(inputs == 100_000)
    }

    @Test func theParsersSurviveAHundredThousandSeededInputs() {
        var random = SeededGenerator(seed: 20_261_129)
        var inputs = 0
        for _ in 0..<100_000 {
            let length = Int.random(in: 0...40, using: &random)
            let bytes = (0..<length).map { _ -> UInt8 in
                Bool.random(using: &random)
                    ? Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)]
                    : UInt8.random(in: 0...255, using: &random)
            }
            FuzzTargets.run(bytes)
            inputs += 1
        }
        #expect(inputs == 100_000)
    }

    @Test(arguments: ["/%2e%2e/etc/passwd", "/..%2f..%2fetc", "/a/../../b", "/%00", "/%c0%ae%c0%ae/", "/\\..\\x"])
    func traversalSpellingsNeverBecomeASafePath(target: String) {
        FuzzTargets.run(Array(target.utf8))
        if let request = try? Request(method: .get, target: target) {
            let segments = request.path.split(separator: "/")
            #expect(!segments.contains("..") || StaticFiles.isSafe(request.path) == false)
        }
    }
}
