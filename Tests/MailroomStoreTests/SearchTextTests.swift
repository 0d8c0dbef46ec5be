import MailroomCore
@testable import MailroomStore
import Testing

@Suite struct SearchTextTests {
    /// The runs a byte-by-byte reading finds: what the look-ahead scan must agree with.
    private func runsReadOneByOne(_ bytes: [UInt8]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for index in 0...bytes.count {
            let isWord = index < bytes.count && SearchText.isWordByte(bytes[index])
            if isWord, start == nil { start = index }
            if !isWord, let from = start {
                if index - from > SearchText.longestWord { runs.append(from..<index) }
                start = nil
            }
        }
        return runs
    }

    private func runs(_ bytes: [UInt8]) -> [Range<Int>] {
        bytes.withUnsafeBufferPointer { SearchText.longRuns(in: $0) }
    }

    @Test func wordBytesAreTheASCIILettersAndDigitsOnly() {
        let words = (0...255).map(UInt8.init).filter(SearchText.isWordByte)
        #expect(String(decoding: words, as: UTF8.self) == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    }

    /// The eight-at-a-time test agrees with the byte test: every byte value, at every place
    /// among word bytes, and random words of word bytes with and without one other in them.
    @Test func eightBytesAtOnceAgreeWithOneAtATime() {
        for value in 0...255 {
            for place in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "m"), count: 8)
                bytes[place] = UInt8(value)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(SearchText.allWordBytes(word) == SearchText.isWordByte(UInt8(value)), "byte \(value) at \(place)")
            }
        }
        var random = SystemRandomNumberGenerator()
        let wordBytes = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for _ in 0..<2_000 {
            var bytes = (0..<8).map { _ in wordBytes.randomElement(using: &random) ?? 0 }
            if Bool.random(using: &random) { bytes[Int.random(in: 0..<8, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(SearchText.allWordBytes(word) == bytes.allSatisfy(SearchText.isWordByte), "\(bytes)")
        }
    }

    @Test func aRunOf255IsKeptAndOneOf256IsLeftOut() {
        let kept = String(repeating: "a", count: 255)
        let dropped = String(repeating: "b", count: 256)
        #expect(SearchText.searchable("x \(kept) y") == "x \(kept) y")
        #expect(SearchText.searchable("x \(dropped) y") == "x   y")
        #expect(SearchText.searchable(dropped) == " ")
        #expect(SearchText.searchable("\(dropped).end") == " .end")
        #expect(SearchText.searchable("start,\(dropped)") == "start, ")
    }

    @Test func accentedOrForeignLettersBreakARunAndAreNeverLeftOut() {
        let half = String(repeating: "x", count: 200)
        #expect(SearchText.searchable("\(half)é\(half)") == "\(half)é\(half)")
        let japanese = String(repeating: "日本語", count: 200)
        #expect(SearchText.searchable(japanese) == japanese)
    }

    @Test func aMailOfOneHundredKilobytesOnOneLineKeepsItsOtherWords() {
        let line = String(repeating: "x", count: 100_000)
        #expect(SearchText.searchable("Hello\r\n\(line)\r\nBye") == "Hello\r\n \r\nBye")
    }

    @Test func theLookAheadScanFindsWhatReadingEveryByteFinds() {
        var random = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [[0x20], [0x2E], [0xC3, 0xA9], Array("ab".utf8), Array("7".utf8)]
        for _ in 0..<400 {
            var bytes: [UInt8] = []
            let target = Int.random(in: 0...1_500, using: &random)
            while bytes.count < target {
                if Bool.random(using: &random) {
                    bytes += pieces.randomElement(using: &random) ?? []
                } else {
                    // Runs near the limit, on both sides of it.
                    let length = Int.random(in: 240...270, using: &random)
                    bytes += [UInt8](repeating: UInt8.random(in: 97...122, using: &random), count: length)
                }
            }
            #expect(runs(bytes) == runsReadOneByOne(bytes), "\(bytes.count) bytes")
        }
    }

    @Test func theIndexFindsTheOtherWordsOfABodyWithALongRunAndTakesThemAllOutAgain() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let blob = String(repeating: "Qm9va3M", count: 60)
            let short = String(repeating: "k", count: 255)
            let message = try store.write { transaction in
                try transaction.add(Draft(subject: "Attached key", body: "Keep \(blob) safe \(short)"), to: .inbox, at: 1)
            }
            // The index itself, not joined with the messages: what it still holds shows.
            func found(_ words: String) throws -> [MessageID] {
                try store.read { reader throws(StoreError) in
                    try reader.integers("SELECT rowid FROM search WHERE search MATCH ?", [.text("\"\(words)\"")])
                }.map { MessageID($0) }
            }
            #expect(try found("safe") == [message.id])
            #expect(try found(short) == [message.id])
            #expect(try found(blob) == [])
            func blocks(holding term: String) throws -> Int {
                try store.read { reader throws(StoreError) in
                    try reader.count("SELECT count(*) FROM search_data WHERE instr(block, CAST(? AS BLOB)) > 0", [.text(term)])
                }
            }
            // The index's pages hold the 255-letter word, and nothing of the 420-letter run (terms
            // are stored after what they share with the one before, so look at their middles).
            #expect(try blocks(holding: String(short.dropFirst(20).prefix(200))) > 0)
            #expect(try blocks(holding: String(blob.lowercased().dropFirst(20).prefix(200))) == 0)
            // The body is kept whole; only the index leaves the run out.
            #expect(try store.library().message(message.id)?.body == "Keep \(blob) safe \(short)")
            try store.write { transaction in
                _ = try transaction.move([message.id], from: .inbox, to: .trash)
                _ = try transaction.deletePermanently([message.id])
            }
            #expect(try found("safe") == [])
            #expect(try found(short) == [])
        }
    }
}
