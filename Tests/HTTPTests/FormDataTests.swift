import HTTP
import Testing

/// Decoding and encoding `application/x-www-form-urlencoded` fields.
struct FormDataTests {
    /// The fields as `[name, value]` pairs, which read well in tables.
    private func pairs(_ encoded: String) throws -> [[String]] {
        try FormData(urlEncoded: encoded).fields.map { [$0.name, $0.value] }
    }

    @Test(arguments: [
        ("", []),
        ("a=1", [["a", "1"]]),
        ("a=1&b=2", [["a", "1"], ["b", "2"]]),
        ("a=1&a=2&b=3&a=4", [["a", "1"], ["a", "2"], ["b", "3"], ["a", "4"]]),
        ("a+b=c+d", [["a b", "c d"]]),
        ("first+name=Ada+Lovelace", [["first name", "Ada Lovelace"]]),
        ("a%20b=c%20d", [["a b", "c d"]]),
        ("plus=%2B&amp=%26&eq=%3D&pct=%25", [["plus", "+"], ["amp", "&"], ["eq", "="], ["pct", "%"]]),
        ("q=%C3%A9", [["q", "é"]]),
        ("q=caf%c3%a9", [["q", "café"]]),
        ("%C3%A9t%C3%A9=summer", [["été", "summer"]]),
        ("mail=%E2%9C%89%EF%B8%8F", [["mail", "✉️"]]),
        ("raw=日本", [["raw", "日本"]]),
        ("a=", [["a", ""]]),
        ("a", [["a", ""]]),
        ("a&b", [["a", ""], ["b", ""]]),
        ("=x", [["", "x"]]),
        ("a=b=c", [["a", "b=c"]]),
        ("a=1&&b=2", [["a", "1"], ["b", "2"]]),
        ("&a=1&", [["a", "1"]]),
        ("body=line1%0D%0Aline2", [["body", "line1\r\nline2"]]),
    ] as [(String, [[String]])])
    func decodesURLEncodedFields(encoded: String, expected: [[String]]) throws {
        #expect(try pairs(encoded) == expected)
    }

    @Test(arguments: [
        "%", "%4", "a=%", "a=%4", "%4=1", "a=1&b=%",
        "%zz", "a=%zz", "a=%4g", "a=%g4", "a=% 4",
        "a=%FF", "a=%C3", "a=%C3%28", "a=%C0%AF", "a=%ED%A0%80",
        "a=%00", "%00=a", "a=x%00y",
    ])
    func refusesBadEscapesInvalidUTF8AndNUL(encoded: String) {
        #expect(throws: FormData.DecodingError.self) { try FormData(urlEncoded: encoded) }
    }

    @Test(arguments: [
        [UInt8(ascii: "a"), UInt8(ascii: "="), 0x00],
        [UInt8(ascii: "a"), UInt8(ascii: "="), 0xFF],
        [0xC3, UInt8(ascii: "="), UInt8(ascii: "1")],
        // Without an escape, the bytes are only checked: truncated, overlong and surrogate UTF-8.
        [UInt8(ascii: "a"), UInt8(ascii: "="), 0xE6, 0x97],
        [UInt8(ascii: "a"), UInt8(ascii: "="), 0xC0, 0xAF, UInt8(ascii: "&"), UInt8(ascii: "b")],
        [UInt8(ascii: "b"), UInt8(ascii: "&"), 0xED, 0xA0, 0x80, UInt8(ascii: "="), UInt8(ascii: "1")],
        [UInt8(ascii: "a"), UInt8(ascii: "="), UInt8(ascii: "x"), 0x00, UInt8(ascii: "+")],
    ])
    func refusesRawNULAndInvalidUTF8Bytes(bytes: [UInt8]) {
        #expect(throws: FormData.DecodingError.self) { try FormData(urlEncoded: bytes) }
    }

    @Test func theErrorSaysWhatIsWrong() {
        let error = #expect(throws: FormData.DecodingError.self) { try FormData(urlEncoded: "a=%zz") }
        #expect(error?.message.isEmpty == false)
    }

    @Test func bytesAndStringsDecodeAlike() throws {
        let text = "a=1&b=x+y&b=%C3%A9"
        #expect(try FormData(urlEncoded: Array(text.utf8)) == FormData(urlEncoded: text))
    }

    @Test func subscriptGivesTheFirstValueAndAllGivesEveryValueInOrder() throws {
        let form = try FormData(urlEncoded: "selected=3&mode=active&selected=1&selected=2")
        #expect(form["selected"] == "3")
        #expect(form.all("selected") == ["3", "1", "2"])
        #expect(form["mode"] == "active")
        #expect(form["missing"] == nil)
        #expect(form.all("missing").isEmpty)
    }

    @Test func namesAreCaseSensitive() throws {
        let form = try FormData(urlEncoded: "Action=add")
        #expect(form["action"] == nil)
        #expect(form["Action"] == "add")
    }

    @Test func appendingKeepsOrderAndEmptiness() {
        var form = FormData()
        #expect(form.isEmpty)
        form.append("b", "2")
        form.append("a", "1")
        #expect(!form.isEmpty)
        #expect(form.fields.map(\.name) == ["b", "a"])
    }

    @Test(arguments: [
        ([("a", "1")], "a=1"),
        ([("a b", "x&y")], "a%20b=x%26y"),
        ([("q", "1+1=2")], "q=1%2B1%3D2"),
        ([("e", "é")], "e=%C3%A9"),
        ([("safe", "A-z_0.9~")], "safe=A-z_0.9~"),
        ([("a", ""), ("", "b")], "a=&=b"),
        ([], ""),
    ] as [([(String, String)], String)])
    func encodesEveryReservedByte(fields: [(String, String)], expected: String) {
        #expect(FormData(fields).urlEncoded == expected)
    }

    @Test(arguments: [
        [("a", "1"), ("a", "2"), ("b", "")],
        [("a b", "c+d"), ("&", "="), ("%", "%25")],
        [("subject", "<script>alert(\"x\")</script>"), ("body", "line 1\r\nline 2\n")],
        [("é", "café ✉️ 日本語")],
        [("", "")],
        [("selected", "1"), ("selected", "20"), ("mode", "active")],
    ] as [[(String, String)]])
    func roundTripsThroughURLEncoded(fields: [(String, String)]) throws {
        let form = FormData(fields)
        #expect(try FormData(urlEncoded: form.urlEncoded) == form)
    }
}
