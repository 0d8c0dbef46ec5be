@testable import MailroomCore
import Testing
import TestSupport

/// The filters a query sets besides its words.
struct SearchFlags: Hashable, Sendable, CustomStringConvertible {
    var isUnread: Bool?
    var isFlagged: Bool?
    var hasAttachment = false
    var hasHTML = false

    init(isUnread: Bool? = nil, isFlagged: Bool? = nil, hasAttachment: Bool = false, hasHTML: Bool = false) {
        self.isUnread = isUnread
        self.isFlagged = isFlagged
        self.hasAttachment = hasAttachment
        self.hasHTML = hasHTML
    }

    init(_ query: SearchQuery) {
        self.init(isUnread: query.isUnread, isFlagged: query.isFlagged, hasAttachment: query.hasAttachment, hasHTML: query.hasHTML)
    }

    var description: String {
        "unread \(isUnread as Any), flagged \(isFlagged as Any), attachment \(hasAttachment), html \(hasHTML)"
    }
}

/// `before` and `after` as a query sets them, in Unix seconds.
struct SearchDays: Hashable, Sendable, CustomStringConvertible {
    var before: Int64?
    var after: Int64?

    var description: String { "before \(before as Any), after \(after as Any)" }
}

@Suite struct SearchQueryTests {
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
        #expect(try SearchQuery(query).match == match)
        #expect(Self.isWellFormed(match))
    }

    @Test(arguments: [
        "", "   ", "\t\n", "*", "-", ":", "\"", "\"\"", "-\"\"", "😀", "from:", "subject:*", "\u{0}", "“”",
    ])
    func aQueryWithNothingSearchableIsEmpty(query: String) throws {
        let search = try SearchQuery(query)
        #expect(search.match == nil)
        #expect(search.isEmpty)
    }

    @Test(arguments: ["is:read", "is:flagged", "has:attachment", "before:2026-11-30", "after:2026-11-30", "x"])
    func anyOperatorOrWordMakesAQueryNonEmpty(query: String) throws {
        #expect(try !SearchQuery(query).isEmpty)
    }

    @Test func filtersWithoutWordsHaveNoMatch() throws {
        let search = try SearchQuery("is:unread has:attachment after:2026-01-01")
        #expect(search.match == nil)
        #expect(!search.isEmpty)
    }

    @Test func theTextIsKeptAsTypedButTrimmed() throws {
        #expect(try SearchQuery("  \t FROM:Bob   is:unread \n").text == "FROM:Bob   is:unread")
    }

    @Test func aDoubleQuoteInsideAStringIsDoubled() {
        #expect(SearchQuery.fts5String(#"say "hi""#) == #""say ""hi""""#)
        #expect(SearchQuery.fts5String("") == #""""#)
    }

    // MARK: Flags

    @Test(arguments: [
        ("is:unread", SearchFlags(isUnread: true)),
        ("is:read", SearchFlags(isUnread: false)),
        ("-is:unread", SearchFlags(isUnread: false)),
        ("-is:read", SearchFlags(isUnread: true)),
        ("is:flagged", SearchFlags(isFlagged: true)),
        ("is:unflagged", SearchFlags(isFlagged: false)),
        ("-is:flagged", SearchFlags(isFlagged: false)),
        ("-is:unflagged", SearchFlags(isFlagged: true)),
        ("has:attachment", SearchFlags(hasAttachment: true)),
        ("has:html", SearchFlags(hasHTML: true)),
        ("HAS:HTML has:attachment", SearchFlags(hasAttachment: true, hasHTML: true)),
        ("Is:Unread", SearchFlags(isUnread: true)),
        ("IS:READ", SearchFlags(isUnread: false)),
        ("is:FLAGGED", SearchFlags(isFlagged: true)),
        ("HAS:Attachment", SearchFlags(hasAttachment: true)),
        (#"is:"unread""#, SearchFlags(isUnread: true)),
        ("is:unread,", SearchFlags(isUnread: true)),
        ("is:unread is:unread", SearchFlags(isUnread: true)),
        ("is:read is:flagged has:attachment", SearchFlags(isUnread: false, isFlagged: true, hasAttachment: true)),
        ("invoice", SearchFlags()),
        ("is", SearchFlags()),
        ("unread", SearchFlags()),
    ] as [(String, SearchFlags)])
    func isAndHasSetTheirFilters(query: String, flags: SearchFlags) throws {
        #expect(try SearchFlags(SearchQuery(query)) == flags)
    }

    @Test func operatorsLeaveTheWordsAroundThemAlone() throws {
        let search = try SearchQuery("invoice is:unread from:bob has:attachment -draft")
        #expect(search.match == #""invoice" AND author : "bob"* NOT "draft""#)
        #expect(SearchFlags(search) == SearchFlags(isUnread: true, hasAttachment: true))
    }

    // MARK: Days

    @Test(arguments: [
        ("before:2026-11-30", SearchDays(before: 1_795_996_800)),
        ("after:2026-11-30", SearchDays(after: 1_795_996_800)),
        ("before:2026/11/30", SearchDays(before: 1_795_996_800)),
        ("AFTER:2026/11/30", SearchDays(after: 1_795_996_800)),
        ("after:2026-12-01", SearchDays(after: 1_796_083_200)),
        ("after:2026-12-1", SearchDays(after: 1_796_083_200)),
        ("before:1970-01-01", SearchDays(before: 0)),
        ("before:1969-12-31", SearchDays(before: -86_400)),
        ("after:2023-12-31", SearchDays(after: 1_703_980_800)),
        ("after:2024-01-01", SearchDays(after: 1_704_067_200)),
        ("after:2024-02-29", SearchDays(after: 1_709_164_800)),
        ("after:2024-03-01", SearchDays(after: 1_709_251_200)),
        ("after:2023-03-01", SearchDays(after: 1_677_628_800)),
        ("after:2000-02-29", SearchDays(after: 951_782_400)),
        ("before:2038-01-19", SearchDays(before: 2_147_472_000)),
        ("before:2038-01-20", SearchDays(before: 2_147_558_400)),
        ("before:9999-12-31", SearchDays(before: 253_402_214_400)),
        ("after:0001-01-01", SearchDays(after: -62_135_596_800)),
        (#"before:"2026-11-30""#, SearchDays(before: 1_795_996_800)),
        // "Not before" is "on or after", and the other way round.
        ("-before:2026-11-30", SearchDays(after: 1_795_996_800)),
        ("-after:2026-11-30", SearchDays(before: 1_795_996_800)),
        // Every filter must hold: the earliest before and the latest after win.
        ("before:2026-12-01 before:2026-11-30", SearchDays(before: 1_795_996_800)),
        ("after:2023-12-31 after:2024-01-01", SearchDays(after: 1_704_067_200)),
        ("after:2026-11-30 before:2026-12-01", SearchDays(before: 1_796_083_200, after: 1_795_996_800)),
    ] as [(String, SearchDays)])
    func daysAreMidnightUTCInUnixSeconds(query: String, days: SearchDays) throws {
        let search = try SearchQuery(query)
        #expect(SearchDays(before: search.before, after: search.after) == days)
        #expect(search.match == nil)
    }

    @Test func everyDayOfFourHundredYearsIsOneDayAfterTheLast() throws {
        // 1900...2299 covers every leap-year rule: 1900 and 2100 are not leap years, 2000 is.
        var expected = try #require(SearchQuery.startOfDay("1900-01-01"))
        var leapDays = 0
        for year in 1900...2299 {
            for month in 1...12 {
                for day in 1...31 {
                    let text = "\(year)-\(month)-\(day)"
                    guard let midnight = SearchQuery.startOfDay(text) else {
                        #expect(day >= 29, "\(text) should be a day")
                        continue
                    }
                    #expect(midnight == expected, "\(text)")
                    if month == 2 && day == 29 { leapDays += 1 }
                    expected += 86_400
                }
            }
        }
        #expect(leapDays == 97)
        #expect(SearchQuery.startOfDay("2300-01-01") == expected)
    }

    // MARK: Errors

    static let isValues = "use is:unread, is:read, is:flagged or is:unflagged."

    @Test(arguments: [
        ("before:2026-13-40", #""before:2026-13-40" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-11-31", #""before:2026-11-31" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-00-10", #""before:2026-00-10" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-01-00", #""before:2026-01-00" isn't a day: write it like before:2026-11-30."#),
        ("after:2023-02-29", #""after:2023-02-29" isn't a day: write it like after:2026-11-30."#),
        ("after:1900-02-29", #""after:1900-02-29" isn't a day: write it like after:2026-11-30."#),
        ("before:yesterday", #""before:yesterday" isn't a day: write it like before:2026-11-30."#),
        ("BEFORE:Yesterday", #""before:Yesterday" isn't a day: write it like before:2026-11-30."#),
        ("before:", #""before:" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-11", #""before:2026-11" isn't a day: write it like before:2026-11-30."#),
        ("before:26-11-30", #""before:26-11-30" isn't a day: write it like before:2026-11-30."#),
        ("before:0000-01-01", #""before:0000-01-01" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-011-30", #""before:2026-011-30" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-11/30", #""before:2026-11/30" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-11-30-1", #""before:2026-11-30-1" isn't a day: write it like before:2026-11-30."#),
        ("before:2026.11.30", #""before:2026.11.30" isn't a day: write it like before:2026-11-30."#),
        ("before:2026-+1-30", #""before:2026-+1-30" isn't a day: write it like before:2026-11-30."#),
        ("before:２０２６-11-30", #""before:２０２６-11-30" isn't a day: write it like before:2026-11-30."#),
        ("is:important", #""is:important" isn't something to search for: "# + Self.isValues),
        ("is:", #""is:" isn't something to search for: "# + Self.isValues),
        ("has:pdf", #""has:pdf" isn't something to search for: use has:attachment or has:html."#),
        ("has:\"pdf\u{0}file\nx\"", #""has:pdf file x" isn't something to search for: use has:attachment or has:html."#),
        ("-has:attachment", "Messages without attachments can't be searched for: remove -has:attachment."),
        ("-has:html", "Messages without an HTML body can't be searched for: remove -has:html."),
        ("tag:work", #"Tags can't be searched for yet: remove "tag:work"."#),
        ("invoice TAG:\"to do\"", #"Tags can't be searched for yet: remove "tag:to do"."#),
        ("-cc:bob", "A search can't only leave words out: add a word to look for."),
        ("is:unread -cc:bob", "A search can't only leave words out: add a word to look for."),
        ("is:read is:unread", "is:read and is:unread can't both be true."),
        ("is:unread -is:unread", "is:read and is:unread can't both be true."),
        ("is:flagged is:unflagged", "is:flagged and is:unflagged can't both be true."),
        ("after:2026-11-30 before:2026-11-30", "before: must be a later day than after:, or nothing can match."),
        ("after:2026-12-01 before:2026-11-30", "before: must be a later day than after:, or nothing can match."),
        ("-draft", "A search can't only leave words out: add a word to look for."),
        ("-draft -spam", "A search can't only leave words out: add a word to look for."),
        ("-draft is:unread", "A search can't only leave words out: add a word to look for."),
        ("-from:bob", "A search can't only leave words out: add a word to look for."),
        (#"-"paper jam" 😀"#, "A search can't only leave words out: add a word to look for."),
    ] as [(String, String)])
    func aQueryThatCannotRunThrowsOneSentence(query: String, message: String) {
        let error = #expect(throws: SearchQueryError.self) { try SearchQuery(query) }
        #expect(error?.message == message)
    }

    // MARK: Help

    @Test func theHelpNamesEveryOperatorAndEachExampleRuns() throws {
        let syntaxes = SearchQuery.operators.map(\.syntax)
        let names = ["from:", "to:", "cc:", "subject:", "is:unread", "is:flagged", "has:attachment", "has:html", "before:", "after:", "@"]
        for name in names + ["-", "*", "\""] {
            #expect(syntaxes.contains { $0.contains(name) }, "\(name) is missing from the help")
        }
        let plain = try SearchQuery("invoice")
        for (syntax, meaning) in SearchQuery.operators {
            #expect(!meaning.isEmpty)
            // After a word, because an exclusion alone cannot run.
            let search = try SearchQuery("invoice " + syntax)
            let changed = search.words != plain.words || !search.substrings.wanted.isEmpty || SearchFlags(search) != SearchFlags(plain)
                || search.before != nil || search.after != nil
            #expect(changed, "\(syntax) changes nothing")
        }
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
        let search = try SearchQuery(query)
        #expect(search.substrings.wanted == substrings)
        #expect(search.match == match)
        #expect(search.hasWords)
    }

    @Test func exclusionsGoToTheIndexOfTheirTerm() throws {
        let search = try SearchQuery("スキャン -draft -請求書 -final")
        #expect(search.match == nil)
        #expect(search.words.unwanted == [#""draft""#, #""final""#])
        #expect(search.words.anyUnwanted == #""draft" OR "final""#)
        #expect(search.substrings.expression == #""スキャン" NOT "請求書""#)
    }

    @Test func ccIsARecipientsTermAndAFilterOnTheCcHeader() throws {
        let search = try SearchQuery("cc:Bob invoice -cc:ann")
        #expect(search.match == #"recipients : "Bob"* AND "invoice""#)
        #expect(search.cc == [.init(text: "Bob", isExcluded: false), .init(text: "ann", isExcluded: true)])
    }

    @Test(arguments: ["a", "Z", "1", "é", "ü", "€", "“", "\u{2014}", "Ж", "ש", "ع", "😀"] as [Unicode.Scalar])
    func scriptsWrittenWithSpacesAreNotSpaceless(scalar: Unicode.Scalar) {
        #expect(!scalar.isWrittenWithoutSpaces)
    }

    @Test(arguments: ["あ", "ア", "ｱ", "漢", "中", "ก", "ລ", "ក", "က", "한", "ㄱ", "𠀋", "、"] as [Unicode.Scalar])
    func scriptsWrittenWithoutSpacesAreSpaceless(scalar: Unicode.Scalar) {
        #expect(scalar.isWrittenWithoutSpaces)
        #expect(String(scalar).utf8.first.map { $0 >= 0xE0 } == true)
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
                let search = try SearchQuery(query)
                if let match = search.match {
                    matched += 1
                    #expect(Self.isWellFormed(match), "\(query.debugDescription) → \(match.debugDescription)")
                }
                #expect(search.isEmpty == (!search.hasWords && SearchFlags(search) == SearchFlags()
                    && search.before == nil && search.after == nil))
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
    func theWellFormednessCheckRejectsWhatSearchQueryNeverWrites(match: String) {
        #expect(!Self.isWellFormed(match))
    }

    @Test(arguments: [
        #""a""#, #""a"*"#, #"author : "b"*"#, #""a" AND "b c" NOT "d" NOT subject : "e f""#, #""a""b""#,
        #"recipients : "ann" AND "é""#,
    ])
    func theWellFormednessCheckAcceptsEveryShapeSearchQueryWrites(match: String) {
        #expect(Self.isWellFormed(match))
    }

    /// Whether `match` has exactly the shapes SearchQuery writes: terms joined by ` AND `, then
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
