import MailroomCore
@testable import MailroomStore
import Testing

/// Japanese, Chinese, Thai and other text written without spaces: any three characters of it
/// are found (through the trigram index), two when they are a whole word (through the word
/// index), and a message that goes leaves nothing behind in either index.
@Suite struct SubstringSearchTests {
    typealias Support = SearchAddressTests

    static func post(_ subject: String, body: String = "", to store: Store, box: MailboxID = .inbox) throws -> Int64 {
        try store.write { try $0.add(Draft(subject: subject, body: body), to: box, at: 1_000) }.id.rawValue
    }

    @Test func aKanaSubstringOfASubjectIsFound() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let scan = try Self.post("請求書のスキャン（3枚）", to: store)
            let other = try Self.post("会議の議事録", body: "スキャンは明日届きます。", to: store)
            _ = try Self.post("An English scan", to: store)
            #expect(try Support.found("スキャン", in: store) == [other, scan])
            #expect(try Support.found("subject:スキャン", in: store) == [scan])
            #expect(try Support.found("請求書", in: store) == [scan])
            #expect(try Support.found("のスキャン", in: store) == [scan])
            #expect(try Support.found("スキャン（3枚", in: store) == [scan])
            #expect(try Support.found("議事録", in: store) == [other])
            #expect(try Support.found("明日届", in: store) == [other])
            #expect(try Support.found("スキャン 議事録", in: store) == [other])
            #expect(try Support.found("スキャン scan", in: store) == [])
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func chineseThaiAndKoreanSubstringsAreFound() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let chinese = try Self.post("发票扫描件已发送", to: store)
            let thai = try Self.post("ใบแจ้งหนี้สแกนแล้ว", to: store)
            let korean = try Self.post("회의록을 보냅니다", to: store)
            #expect(try Support.found("扫描件", in: store) == [chinese])
            #expect(try Support.found("แจ้งหนี้", in: store) == [thai])
            #expect(try Support.found("회의록", in: store) == [korean])
            #expect(try Support.found("扫描件 -แจ้งหนี้", in: store) == [chinese])
        }
    }

    @Test func twoCharactersAreFoundAsAWholeWord() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let word = try Self.post("請求 のお知らせ", to: store)
            _ = try Self.post("請求書のスキャン", to: store)
            #expect(try Support.found("請求", in: store) == [word])
        }
    }

    @Test func exclusionsWorkAcrossBothIndexes() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            let draft = try Self.post("スキャン draft", to: store)
            let final = try Self.post("スキャン final", body: "請求書です", to: store)
            #expect(try Support.found("スキャン -draft", in: store) == [final])
            #expect(try Support.found("スキャン -請求書", in: store) == [draft])
            #expect(try Support.found("final -請求書", in: store) == [])
            #expect(try Support.found("draft -請求書", in: store) == [draft])
            #expect(try Support.found("スキャン -draft -final", in: store) == [])
            #expect(try Support.counted("スキャン -draft", in: store) == 1)
            #expect(throws: SearchQueryError.self) { try SearchQuery("-スキャン") }
        }
    }

    @Test func pagesCountsAndWaitsWorkWhicheverIndexDrives() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            var ids: [Int64] = []
            for index in 0..<7 {
                ids.append(try Self.post("スキャン \(index) report", to: store))
                _ = try Self.post("ノイズ \(index) report", to: store)
            }
            for text in ["スキャン", "スキャン report", "report スキャン"] {
                let query = try SearchQuery(text)
                var seen: [Int64] = []
                var place = PagePlace.top
                while true {
                    let slice = try store.read { reader throws(StoreError) in try reader.search(query, in: .inbox, from: place, limit: 3) }
                    seen += slice.rows.map(\.id.rawValue)
                    #expect(slice.total == 7, "\(text)")
                    guard slice.hasOlder, let last = slice.keys.last else { break }
                    place = .below(last)
                }
                #expect(seen == ids.reversed(), "\(text)")
                let newest = try store.read { reader throws(StoreError) in try reader.newestMatch(query, in: .inbox, above: ids[5]) }
                #expect(newest?.rawValue == ids[6], "\(text)")
                let all = try store.read { reader throws(StoreError) in try reader.ids(matching: query, in: .inbox, enteredBy: .max) }
                #expect(all.map(\.rawValue) == ids.reversed(), "\(text)")
            }
        }
    }

    @Test(arguments: [false, true])
    func aDeletedMessageLeavesNothingInEitherIndex(imported: Bool) throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            // Long enough to be kept in its raw mail when imported.
            let text = String(repeating: "請求書のスキャンを送ります。 ", count: 400)
            let mail = Support.mail("スキャン結果", from: "山田 太郎 <taro@example.test>", cc: "経理部 <keiri@example.test>", text: text)
            if imported {
                var raw = mail
                raw.raw = Array("Subject: x\n\n\(text)\n".utf8)
                _ = try store.write {
                    try $0.importMail([ImportedMail(mail: raw, key: [1], time: 1_000, isUnread: true, isFlagged: false)], to: .inbox)
                }
            } else {
                _ = try store.write { try $0.addMail(mail, to: [.inbox], at: 1_000) }
            }
            let ids = try #require(try store.library()[.inbox]?.ids)
            let kept = "SELECT count(*) FROM search_cjk WHERE search_cjk MATCH ?"
            for term in ["\"スキャン結果\"", "body : \"スキャンを送\"", "author : \"山田 太郎\"", "recipients : \"経理部\""] {
                #expect(try store.read { reader throws(StoreError) in try reader.integers(kept, [.text(term)]) } == [1], "\(term)")
            }
            #expect(try Support.found("cc:経理部", in: store) == ids.map(\.rawValue))
            #expect(try Support.found("from:山田", in: store) == ids.map(\.rawValue))
            try store.write { try $0.move(ids, from: .inbox, to: .trash) }
            try store.write { _ = try $0.emptyTrash() }
            for term in ["\"スキャン結果\"", "body : \"スキャンを送\"", "author : \"山田 太郎\"", "recipients : \"経理部\""] {
                #expect(try store.read { reader throws(StoreError) in try reader.integers(kept, [.text(term)]) } == [0], "\(term)")
            }
            let words = "SELECT count(*) FROM search WHERE search MATCH ?"
            for term in ["author : taro", "recipients : keiri"] {
                #expect(try store.read { reader throws(StoreError) in try reader.integers(words, [.text(term)]) } == [0], "\(term)")
            }
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func mailWithoutSuchScriptsCostsTheSubstringIndexNothing() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            _ = try Self.post("Invoice scan", body: "Café crème, naïve résumé — “quoted” ½ €", to: store)
            _ = try store.write { try $0.addMail(Support.mail("Scan", from: "Ann <ann@x.test>"), to: [.inbox], at: 1_000) }
            let rows = "SELECT count(*) FROM search_cjk_idx"
            #expect(try store.read { reader throws(StoreError) in try reader.integers(rows, []) } == [0])
        }
    }

    @Test func whatSeparatesWordsIsUnicodesWhiteSpaceAndControlCharacters() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            #expect(SearchText.separatesWords(scalar) == expected, "U+\(String(value, radix: 16))")
            if SearchText.separatesWords(scalar) != expected { return }
        }
    }

    @Test func spacelessKeepsOnlyTextWithSuchAScriptWithWhiteSpaceCollapsed() {
        #expect(SearchText.spaceless("plain text é ü") == "")
        #expect(SearchText.spaceless("") == "")
        #expect(SearchText.spaceless("  請求書\n\t のスキャン\u{3000}3枚 ") == "請求書 のスキャン 3枚")
        #expect(SearchText.spaceless("ใบแจ้งหนี้") == "ใบแจ้งหนี้")
        #expect(SearchText.spaceless("“quotes” — €") == "")
    }
}
