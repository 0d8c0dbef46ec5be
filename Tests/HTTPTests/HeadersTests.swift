import HTTP
import Testing

/// Header fields: order kept, names compared without case.
struct HeadersTests {
    @Test(arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe"])
    func lookupIgnoresTheCaseOfTheName(name: String) {
        let headers = Headers([("Content-Type", "text/html; charset=utf-8")])
        #expect(headers[name] == "text/html; charset=utf-8")
    }

    @Test func lookupOfAMissingNameIsNil() {
        #expect(Headers([("Host", "x")])["Location"] == nil)
        #expect(Headers()["Host"] == nil)
    }

    @Test func lookupGivesTheFirstValueAndValuesGivesAllInOrder() {
        let headers = Headers([("Accept", "a"), ("X", "1"), ("accept", "b")])
        #expect(headers["ACCEPT"] == "a")
        #expect(headers.values(for: "Accept") == ["a", "b"])
        #expect(headers.values(for: "Missing").isEmpty)
    }

    @Test func addAppendsAnotherValue() {
        var headers = Headers()
        headers.add("Vary", "Accept")
        headers.add("vary", "Cookie")
        #expect(headers.values(for: "Vary") == ["Accept", "Cookie"])
    }

    @Test func setReplacesEveryValueWhateverItsCase() {
        var headers = Headers([("Cache-Control", "a"), ("Host", "h"), ("cache-control", "b")])
        headers.set("CACHE-CONTROL", "no-cache")
        #expect(headers.values(for: "Cache-Control") == ["no-cache"])
        #expect(headers["host"] == "h")
        #expect(headers.fields.count == 2)
    }

    @Test func setAddsANameThatWasNotThere() {
        var headers = Headers([("Host", "h")])
        headers.set("Location", "/x")
        #expect(headers["location"] == "/x")
        #expect(headers.map(\.name) == ["Host", "Location"])
    }

    @Test func iterationFollowsArrivalOrder() {
        let headers = Headers([("B", "2"), ("A", "1"), ("C", "3")])
        #expect(headers.map(\.name) == ["B", "A", "C"])
        #expect(headers.map(\.value) == ["2", "1", "3"])
    }
}
