import MailroomCore
@testable import MailroomStore
import Testing
import TestSupport

/// A query's terms as FTS5 MATCH expressions: every user token an FTS5 string, terms joined in
/// the few shapes the store writes, each term in the index of its script.
@Suite struct FTS5QueryTests {
    // MARK: Words

    @Test(arguments: [
        // Plain words, prefixes and phrases.
        ("invoice", #""invoice""#),
        ("invoice scanner", #""invoice" AND "scanner""#),
        ("  invoice \t\t scanner \n ", #""invoice" AND "scanner""#),
        ("scan*", #""scan"*"#),
        ("scan**", #""scan"*"#),
        ("scan.*", #""scan"*"#),
        ("(scan*)", #""scan"*"#),
        (#""paper jam""#, #""paper jam""#),
        (#""paper jam"*"#, #""paper jam"*"#),
        (#""paper ja*""#, #""paper ja"*"#),
        (#""paper   jam""#, #""paper jam""#),
        (#"invoice "paper jam" scanner"#, #""invoice" AND "paper jam" AND "scanner""#),
        ("“paper jam”", #""paper jam""#),
        ("café", #""café""#),
        ("e-mail", #""e-mail""#),
        ("invoice,", #""invoice""#),
        // A bare address is looked for among senders and recipients.
        ("bob@example.com", #"{author recipients} : "bob@example.com""#),
        ("-bob@example.com invoice", #""invoice" NOT {author recipients} : "bob@example.com""#),
        ("@example.com", #""example.com""#),
        ("bob@", #""bob""#),
        // from: and to: ask for a prefix of their last token; subject: only with a star.
        ("from:bob", #"author : "bob"*"#),
        ("from:bob*", #"author : "bob"*"#),
        (#"from:"Bob Smith""#, #"author : "Bob Smith"*"#),
        (#"from:"Bob Sm"#, #"author : "Bob Sm"*"#),
        ("from:bob@example.com", #"author : "bob@example.com"*"#),
        ("to:ann", #"recipients : "ann"*"#),
        ("cc:ann", #"recipients : "ann"*"#),
        ("cc:ann@example.com", #"recipients : "ann@example.com"*"#),
        ("invoice -cc:ann", #""invoice""#),
        (#"to:"Ann Lee""#, #"recipients : "Ann Lee"*"#),
        ("subject:invoice", #"subject : "invoice""#),
        ("subject:inv*", #"subject : "inv"*"#),
        (#"subject:"two words""#, #"subject : "two words""#),
        (#"subject:"two wo"*"#, #"subject : "two wo"*"#),
        ("from:bob subject:invoice scanner", #"author : "bob"* AND subject : "invoice" AND "scanner""#),
        // Exclusions come after every positive term.
        ("invoice -draft", #""invoice" NOT "draft""#),
        ("-draft invoice", #""invoice" NOT "draft""#),
        ("-draft invoice -spam scanner", #""invoice" AND "scanner" NOT "draft" NOT "spam""#),
        (#"invoice -"paper jam""#, #""invoice" NOT "paper jam""#),
        ("invoice -scan*", #""invoice" NOT "scan"*"#),
        ("invoice -from:bob", #""invoice" NOT author : "bob"*"#),
        ("invoice -to:ann", #""invoice" NOT recipients : "ann"*"#),
        ("invoice -subject:draft", #""invoice" NOT subject : "draft""#),
        ("invoice --draft", #""invoice" NOT "draft""#),
        ("invoice - draft", #""invoice" AND "draft""#),
        // Operator names ignore case; the value is searched as typed.
        ("FROM:Bob", #"author : "Bob"*"#),
        ("From:bob", #"author : "bob"*"#),
        ("TO:ann", #"recipients : "ann"*"#),
        ("SUBJECT:Invoice", #"subject : "Invoice""#),
        ("sUbJeCt:x", #"subject : "x""#),
        // Unknown operators, URLs and FTS5's own syntax are text.
        ("foo:bar", #""foo:bar""#),
        ("http://x", #""http://x""#),
        ("fromage:bleu", #""fromage:bleu""#),
        ("x:from:bob", #""x:from:bob""#),
        ("invoice OR receipt", #""invoice" AND "OR" AND "receipt""#),
        ("NOT AND", #""NOT" AND "AND""#),
        ("NEAR(a b)", #""NEAR(a" AND "b""#),
        ("^start", #""start""#),
        ("a+b", #""a+b""#),
        ("{subject}:x", #""subject}:x""#),
        ("subject : x", #""subject" AND "x""#),
        // Whatever has nothing searchable in it contributes nothing.
        ("invoice \"\"", #""invoice""#),
        ("invoice * - : \" ", #""invoice""#),
        ("invoice 😀", #""invoice""#),
        ("invoice -😀", #""invoice""#),
        ("invoice from:", #""invoice""#),
        ("from: bob", #""bob""#),
        (#"invoice from:"""#, #""invoice""#),
        // Quotes split words, an unclosed quote runs to the end, and a quote with an accent on it is
        // still a quote.
        (#"a"b c"d"#, #""a" AND "b c" AND "d""#),
        (#""paper jam"#, #""paper jam""#),
        (#"invoice "paper jam -draft"#, #""invoice" AND "paper jam -draft""#),
        ("a\"\u{301}b", #""a" AND "b""#),
        // Control characters separate words: a NUL would end an FTS5 string early.
        ("a\u{0}b", #""a" AND "b""#),
        ("\"a\u{0}b\"", #""a b""#),
        ("\"a\u{7}\tb\"", #""a b""#),
    ] as [(String, String)])
    func wordsBecomeFTS5StringsJoinedWithAnd(query: String, match: String) throws {
        #expect(try FTS5Query(SearchQuery(query)).match == match)
        #expect(Self.isWellFormed(match))
    }

    @Test(arguments: [
        "", "   ", "\t\n", "*", "-", ":", "\"", "\"\"", "-\"\"", "😀", "from:", "subject:*", "\u{0}", "“”",
        "is:unread has:attachment after:2026-01-01",
    ])
    func aQueryWithoutWordsHasNoMatch(query: String) throws {
        let compiled = FTS5Query(try SearchQuery(query))
        #expect(compiled.match == nil)
        #expect(compiled.substrings.expression == nil)
    }

    @Test func aDoubleQuoteInsideAStringIsDoubled() {
        #expect(FTS5Query.string(#"say "hi""#) == #""say ""hi""""#)
        #expect(FTS5Query.string("") == #""""#)
    }

    @Test func operatorsLeaveTheWordsAroundThemAlone() throws {
        let compiled = FTS5Query(try SearchQuery("invoice is:unread from:bob has:attachment -draft"))
        #expect(compiled.match == #""invoice" AND author : "bob"* NOT "draft""#)
    }

    // MARK: Scripts written without spaces

    @Test(arguments: [
        // Three characters or more with such a script: the substring index, without a star.
        ("スキャン", [#""スキャン""#], nil),
        ("請求書", [#""請求書""#], nil),
        ("扫描件", [#""扫描件""#], nil),
        ("แจ้งหนี้", [#""แจ้งหนี้""#], nil),
        ("회의록", [#""회의록""#], nil),
        ("スキャン*", [#""スキャン""#], nil),
        ("subject:スキャン", [#"subject : "スキャン""#], nil),
        ("from:山田太郎", [#"author : "山田太郎""#], nil),
        (#""請求書の  スキャン""#, [#""請求書の スキャン""#], nil),
        ("Mailroomの設定", [#""Mailroomの設定""#], nil),
        // Fewer: a whole word of the word index.
        ("請求", [], #""請求""#),
        ("from:山田", [], #"author : "山田"*"#),
        ("スキャン invoice", [#""スキャン""#], #""invoice""#),
    ] as [(String, [String], String?)])
    func termsWithScriptsWithoutSpacesGoToTheSubstringIndex(query: String, substrings: [String], match: String?) throws {
        let compiled = FTS5Query(try SearchQuery(query))
        #expect(compiled.substrings.wanted == substrings)
        #expect(compiled.match == match)
    }

    @Test func exclusionsGoToTheIndexOfTheirTerm() throws {
        let compiled = FTS5Query(try SearchQuery("スキャン -draft -請求書 -final"))
        #expect(compiled.match == nil)
        #expect(compiled.words.unwanted == [#""draft""#, #""final""#])
        #expect(compiled.words.anyUnwanted == #""draft" OR "final""#)
        #expect(compiled.substrings.expression == #""スキャン" NOT "請求書""#)
    }

    @Test func aWantedCcIsARecipientsTermAndALeftOutOneIsNoTerm() throws {
        let compiled = FTS5Query(try SearchQuery("cc:Bob invoice -cc:ann"))
        #expect(compiled.match == #"recipients : "Bob"* AND "invoice""#)
    }

    // MARK: Random queries

    /// Pieces a random query is built from: FTS5's syntax, operators, white space, accents, emoji, NUL.
    static let nastyAlphabet: [String] = [
        "\"", "\"", "*", "-", "-", ":", " ", " ", "  ", "\t", "\n", "a", "b", "z", "Q", "7", "é", "e\u{301}",
        "\u{301}", "\"\u{301}", "😀", "👨‍👩‍👧", "\u{0}", "\u{7}", "(", ")", "^", "+", "{", "}", "“", "”", ".",
        "@",
        "ß", "İ", "٣", "\u{E000}", "\u{200B}", "from:", "FROM:", "to:", "subject:", "is:", "has:", "before:",
        "after:", "unread", "attachment", "2026-11-30", "NOT", "AND", "OR", "NEAR", "word",
    ]

    @Test func randomQueriesNeverCrashAndAlwaysWriteWellFormedMatches() {
        var random = SeededGenerator(seed: 0x5EA2C4)
        var matched = 0
        var refused = 0
        for _ in 0..<2_000 {
            let query = (0..<random.below(24)).map { _ in random.pick(Self.nastyAlphabet) }.joined()
            do {
                let compiled = FTS5Query(try SearchQuery(query))
                for match in [compiled.match, compiled.substrings.expression].compactMap({ $0 }) {
                    matched += 1
                    #expect(Self.isWellFormed(match), "\(query.debugDescription) → \(match.debugDescription)")
                }
            } catch {
                refused += 1
                #expect(error.message.hasSuffix("."), "\(query.debugDescription) → \(error.message)")
            }
        }
        // The alphabet must exercise both outcomes, or the loop proves little.
        #expect(matched > 500)
        #expect(refused > 100)
    }

    @Test(arguments: [
        "", #""""#, #""a" AND """#, #""a"#, #"a"#, #"NOT "a""#, #""a" NOT "b" AND "c""#, #""a" OR "b""#,
        "\"a\u{0}\"", #""a"**"#, #"foo : "a""#, #"author: "a""#, #"("a")"#, #""a"""#, #""😀""#, #""a" AND"#,
        #""a"  AND "b""#, #""a" "b""#, #"" a""#, #""a ""#, #""-""#, #""say ""hi""""#,
    ])
    func theWellFormednessCheckRejectsWhatFTS5QueryNeverWrites(match: String) {
        #expect(!Self.isWellFormed(match))
    }

    @Test(arguments: [
        #""a""#, #""a"*"#, #"author : "b"*"#, #""a" AND "b c" NOT "d" NOT subject : "e f""#, #""a""b""#,
        #"recipients : "ann" AND "é""#,
    ])
    func theWellFormednessCheckAcceptsEveryShapeFTS5QueryWrites(match: String) {
        #expect(Self.isWellFormed(match))
    }

    /// Whether `match` has exactly the shapes FTS5Query writes: terms joined by ` AND `, then
    /// ` NOT ` terms; a term is an optional `column : `, then an FTS5 string that starts and ends
    /// with a letter or digit and holds no control character, then an optional `*`.
    static func isWellFormed(_ match: String) -> Bool {
        var reader = MatchReader(scalars: Array(match.unicodeScalars))
        guard reader.readTerm() else { return false }
        var excluding = false
        while !reader.isAtEnd {
            if !excluding && reader.read(" AND ") {
                guard reader.readTerm() else { return false }
            } else if reader.read(" NOT ") {
                excluding = true
                guard reader.readTerm() else { return false }
            } else {
                return false
            }
        }
        return true
    }
}

/// Reads an FTS5 expression scalar by scalar, independently of the code under test.
private struct MatchReader {
    let scalars: [Unicode.Scalar]
    var offset = 0

    var isAtEnd: Bool { offset == scalars.count }

    mutating func read(_ literal: String) -> Bool {
        let expected = Array(literal.unicodeScalars)
        guard scalars.count - offset >= expected.count,
            Array(scalars[offset..<offset + expected.count]) == expected
        else { return false }
        offset += expected.count
        return true
    }

    mutating func readTerm() -> Bool {
        _ = read("subject : ") || read("author : ") || read("recipients : ") || read("{author recipients} : ")
        guard read("\"") else { return false }
        var content: [Unicode.Scalar] = []
        while true {
            guard !isAtEnd else { return false }  // never closed
            let scalar = scalars[offset]
            offset += 1
            if scalar == "\"" {
                guard read("\"") else { break }
            }
            content.append(scalar)
        }
        _ = read("*")
        guard let first = content.first, let last = content.last,
            Self.isLetterOrDigit(first), Self.isLetterOrDigit(last)
        else { return false }
        return !content.contains { $0.properties.generalCategory == .control }
    }

    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            || scalar.properties.generalCategory == .privateUse
    }
}
