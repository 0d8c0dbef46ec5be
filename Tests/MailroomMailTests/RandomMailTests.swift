import Glibc
@testable import MailroomMail
import TestSupport
import Testing

/// The fuzz target on a fixed-seed stream of mutated corpus files inside `make test`;
/// `make fuzz` runs it under libFuzzer for as long as you like.
@Suite struct RandomMailTests {
    @Test func theParserSurvivesMutatedMail() throws {
        let names = ["alternative.eml", "nested-mixed.eml", "inline-cid.eml", "html-only.eml", "subject-koi8-r.eml"]
        let seeds = names.compactMap { name -> [UInt8]? in
            guard let file = fopen(CorpusTests.folder + name, "rb") else { return nil }
            defer { fclose(file) }
            var bytes = [UInt8](repeating: 0, count: 8_192)
            let read = fread(&bytes, 1, bytes.count, file)
            return Array(bytes[..<read])
        }
        #expect(seeds.count == names.count)
        let alphabet = Array("-=\r\n:;\"<>/boundary=Content-Type: multipart/base64?=".utf8) + [0, 0x80, 0xFF]
        var random = SeededGenerator(seed: 13)
        for _ in 0..<3_000 {
            var bytes = random.pick(seeds)
            for _ in 0..<random.below(8) + 1 {
                let index = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0: bytes.insert(random.pick(alphabet), at: index)
                case 1: if index < bytes.count { bytes.remove(at: index) }
                default: if index < bytes.count { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
                }
            }
            FuzzTargets.run(bytes)
        }
    }
}
