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
        // Plain words, prefixes and phrases: white space inside a phrase is single spaces.
        ("invoice", [term("invoice")]),
        ("invoice scanner", [term("invoice"), term("scanner")]),
        ("  invoice \t\t scanner \n ", [term("invoice"), term("scanner")]),
        ("scan*", [term("scan", isPrefix: true)]),
        ("scan.*", [term("scan", isPrefix: true)]),
        ("(scan*)", [term("scan", isPrefix: true)]),
        (#""paper jam""#, [term("paper jam")]),
        (#""paper jam"*"#, [term("paper jam", isPrefix: true)]),
        (#""paper ja*""#, [term("paper ja", isPrefix: true)]),
        (#""paper   jam""#, [term("paper jam")]),
        ("“paper jam”", [term("paper jam")]),
        ("e-mail", [term("e-mail")]),
        ("invoice,", [term("invoice")]),
        // A bare address is looked for among senders and recipients; in quotes it is words.
        ("bob@example.com", [term("bob@example.com", field: .authorOrRecipients)]),
        (#""bob@example.com""#, [term("bob@example.com")]),
        ("@example.com", [term("example.com")]),
        ("bob@", [term("bob")]),
        // from:, to: and cc: ask for a prefix; subject: only with a star.
        ("from:bob", [term("bob", field: .author, isPrefix: true)]),
        (#"from:"Bob Smith""#, [term("Bob Smith", field: .author, isPrefix: true)]),
        ("to:ann", [term("ann", field: .recipients, isPrefix: true)]),
        ("cc:ann", [term("ann", field: .recipients, isPrefix: true)]),
        ("subject:invoice", [term("invoice", field: .subject)]),
        ("subject:inv*", [term("inv", field: .subject, isPrefix: true)]),
        ("SUBJECT:Invoice", [term("Invoice", field: .subject)]),
        // Exclusions stay where they were typed.
        ("invoice -draft", [term("invoice"), term("draft", isExcluded: true)]),
        ("-draft invoice", [term("draft", isExcluded: true), term("invoice")]),
        ("invoice -from:bob", [term("invoice"), term("bob", field: .author, isPrefix: true, isExcluded: true)]),
        ("invoice --draft", [term("invoice"), term("draft", isExcluded: true)]),
        ("invoice - draft", [term("invoice"), term("draft")]),
        ("invoice -cc:ann", [term("invoice")]),
        // Unknown operators, URLs and other search engines' syntax are text.
        ("foo:bar", [term("foo:bar")]),
        ("x:from:bob", [term("x:from:bob")]),
        ("invoice OR receipt", [term("invoice"), term("OR"), term("receipt")]),
        ("NEAR(a b)", [term("NEAR(a"), term("b")]),
        ("subject : x", [term("subject"), term("x")]),
        // Whatever has nothing searchable in it contributes nothing.
        ("invoice * - : \" ", [term("invoice")]),
        ("invoice 😀", [term("invoice")]),
        ("invoice from:", [term("invoice")]),
        ("from: bob", [term("bob")]),
        // Quotes split words, an unclosed quote runs to the end, and a quote with an accent on it
        // is still a quote; control characters separate words.
        (#"a"b c"d"#, [term("a"), term("b c"), term("d")]),
        (#"invoice "paper jam -draft"#, [term("invoice"), term("paper jam -draft")]),
        ("a\"\u{301}b", [term("a"), term("b")]),
        ("a\u{0}b", [term("a"), term("b")]),
        ("\"a\u{7}\tb\"", [term("a b")]),
        // Three characters or more of a script written without spaces: a substring, never a prefix.
        ("スキャン", [term("スキャン", isSubstring: true)]),
        ("スキャン*", [term("スキャン", isSubstring: true)]),
        ("from:山田太郎", [term("山田太郎", field: .author, isSubstring: true)]),
        ("Mailroomの設定", [term("Mailroomの設定", isSubstring: true)]),
        ("請求", [term("請求")]),
        ("from:山田", [term("山田", field: .author, isPrefix: true)]),
        ("スキャン -請求書", [term("スキャン", isSubstring: true), term("請求書", isExcluded: true, isSubstring: true)]),
    ] as [(String, [SearchQuery.Term])])
    func wordsBecomeTermsInTheOrderTyped(query: String, terms: [SearchQuery.Term]) throws {
        #expect(try SearchQuery(query).terms == terms)
    }

    @Test(arguments: [
        "", "   ", "\t\n", "*", "-", ":", "\"", "\"\"", "-\"\"", "😀", "from:", "subject:*", "\u{0}", "“”",
    ])
    func aQueryWithNothingSearchableIsEmpty(query: String) throws {
        let search = try SearchQuery(query)
        #expect(search.terms.isEmpty)
        #expect(search.isEmpty)
    }

    @Test(arguments: ["is:read", "is:flagged", "has:attachment", "before:2026-11-30", "after:2026-11-30", "x"])
    func anyOperatorOrWordMakesAQueryNonEmpty(query: String) throws {
        #expect(try !SearchQuery(query).isEmpty)
    }

    @Test func filtersWithoutWordsHaveNoTerms() throws {
        let search = try SearchQuery("is:unread has:attachment after:2026-01-01")
        #expect(search.terms.isEmpty)
        #expect(!search.hasWords)
        #expect(!search.isEmpty)
    }

    @Test func theTextIsKeptAsTypedButTrimmed() throws {
        #expect(try SearchQuery("  \t FROM:Bob   is:unread \n").text == "FROM:Bob   is:unread")
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
        #expect(search.terms == [term("invoice"), term("bob", field: .author, isPrefix: true), term("draft", isExcluded: true)])
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
        #expect(search.terms.isEmpty)
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
        ("tag:!!", #""tag:!!" isn't a tag: tags are letters, digits, spaces, - _ . and @."#),
        ("invoice TAG:\"\"", #""tag:" isn't a tag: tags are letters, digits, spaces, - _ . and @."#),
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
            let changed = search.terms != plain.terms || SearchFlags(search) != SearchFlags(plain)
                || search.before != nil || search.after != nil || search.tags != plain.tags
            #expect(changed, "\(syntax) changes nothing")
        }
    }

    // MARK: Scripts written without spaces

    @Test func ccIsARecipientsTermAndAFilterOnTheCcHeader() throws {
        let search = try SearchQuery("cc:Bob invoice -cc:ann")
        #expect(search.terms == [term("Bob", field: .recipients, isPrefix: true), term("invoice")])
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

    /// Pieces a random query is built from: quotes, stars, operators, white space, accents, emoji, NUL.
    static let nastyAlphabet: [String] = [
        "\"", "\"", "*", "-", "-", ":", " ", " ", "  ", "\t", "\n", "a", "b", "z", "Q", "7", "é", "e\u{301}",
        "\u{301}", "\"\u{301}", "😀", "👨‍👩‍👧", "\u{0}", "\u{7}", "(", ")", "^", "+", "{", "}", "“", "”", ".",
        "@", "ß", "İ", "٣", "\u{E000}", "\u{200B}", "スキャン", "請", "from:", "FROM:", "to:", "cc:", "subject:", "is:",
        "has:", "before:", "after:", "unread", "attachment", "2026-11-30", "NOT", "AND", "OR", "word",
    ]

    @Test func randomQueriesNeverCrashAndAlwaysMakeWellFormedTerms() {
        var random = SeededGenerator(seed: 0x5EA2C4)
        var understood = 0
        var refused = 0
        for _ in 0..<2_000 {
            let query = (0..<random.below(24)).map { _ in random.pick(Self.nastyAlphabet) }.joined()
            do {
                let search = try SearchQuery(query)
                if search.hasWords { understood += 1 }
                for term in search.terms {
                    #expect(Self.isWellFormed(term), "\(query.debugDescription) → \(term)")
                }
                #expect(search.isEmpty == (!search.hasWords && SearchFlags(search) == SearchFlags()
                    && search.before == nil && search.after == nil))
            } catch {
                refused += 1
                #expect(error.message.hasSuffix("."), "\(query.debugDescription) → \(error.message)")
            }
        }
        // The alphabet must exercise both outcomes, or the loop proves little.
        #expect(understood > 500)
        #expect(refused > 100)
    }

    /// Whether a term's text starts and ends with a letter or digit, has no control character,
    /// and has single spaces only; and a substring term is no prefix.
    static func isWellFormed(_ term: SearchQuery.Term) -> Bool {
        let scalars = Array(term.text.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last,
            isLetterOrDigit(first),
            // A Thai vowel or tone mark ends a word of its script.
            isLetterOrDigit(last) || scalars.contains(where: \.isWrittenWithoutSpaces)
        else { return false }
        return !scalars.contains { $0.properties.generalCategory == .control }
            && !term.text.contains("  ") && !(term.isSubstring && term.isPrefix)
    }

    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            || scalar.properties.generalCategory == .privateUse
    }
}

/// A term as the tests write it.
private func term(
    _ text: String, field: SearchQuery.Term.Field? = nil, isPrefix: Bool = false, isExcluded: Bool = false, isSubstring: Bool = false
) -> SearchQuery.Term {
    SearchQuery.Term(text, field: field, isPrefix: isPrefix, isExcluded: isExcluded, isSubstring: isSubstring)
}
