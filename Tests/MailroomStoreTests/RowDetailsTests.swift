import MailroomCore
import Testing
@testable import MailroomStore

/// The ids a page asks mail details for, written as the JSON array the statement reads.
struct RowDetailsTests {
    @Test func idsAreWrittenAsAJSONArrayOfTheirNumbers() {
        #expect(Reader.jsonArray(of: []) == "[]")
        #expect(Reader.jsonArray(of: [MessageID(0)]) == "[0]")
        #expect(Reader.jsonArray(of: [MessageID(7), MessageID(10), MessageID(1_234_567_890_123)]) == "[7,10,1234567890123]")
        #expect(Reader.jsonArray(of: [MessageID(-5), MessageID(Int64.max), MessageID(Int64.min)])
            == "[-5,\(Int64.max),\(Int64.min)]")
    }

    @Test func everyIdOfAPageAsksForItsOwnNumber() {
        let ids = (1...500).map { MessageID(Int64($0) * 37) }
        #expect(Reader.jsonArray(of: ids) == "[" + ids.map { String($0.rawValue) }.joined(separator: ",") + "]")
    }
}
