import HTTP
import Testing

/// The fuzz targets, run on a fixed-seed stream of random and near-valid inputs inside `make test`.
/// `make fuzz` runs the same targets under libFuzzer for as long as you like.
@Suite struct RandomInputTests {
    /// SplitMix64: small, fast and the same on every machine.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Bytes that matter to the parsers, so random inputs hit their edges often.
    static let alphabet: [UInt8] = Array("%+=&/.\\?#;0123456789abcdefABCDEF xyz".utf8) + [0, 0x7F, 0x80, 0xC3, 0xA9, 0xE2, 0xFF]

    @Test func theParsersSurviveHundredsOfThousandsOfSeededInputs() {
        var random = Seeded(state: 20_261_129)
        var inputs = 0
        for _ in 0..<200_000 {
            let length = Int.random(in: 0...40, using: &random)
            let bytes = (0..<length).map { _ -> UInt8 in
                Bool.random(using: &random)
                    ? Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)]
                    : UInt8.random(in: 0...255, using: &random)
            }
            FuzzTargets.run(bytes)
            inputs += 1
        }
        #expect(inputs == 200_000)
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
