import MailroomCore
import Testing

@Suite struct MessageIDTests {
    @Test(arguments: ["1", "42", "9223372036854775807"])
    func parsesThePositiveDecimalFormAndPrintsItBack(text: String) throws {
        let id = try #require(MessageID(text))
        #expect(id.description == text)
        #expect(MessageID(Substring(text)) == id)
    }

    @Test(arguments: ["", "0", "-1", "abc", "1.5", " 1", "1 ", "1e3", "0x10", "9223372036854775808"])
    func rejectsAnythingElse(text: String) {
        #expect(MessageID(text) == nil)
    }

    @Test func ordersByValue() {
        #expect(MessageID(2) < MessageID(10))
        #expect(!(MessageID(10) < MessageID(2)))
        #expect([MessageID(3), MessageID(1), MessageID(2)].sorted() == [MessageID(1), MessageID(2), MessageID(3)])
        #expect(MessageID(rawValue: 5) == MessageID(5))
    }
}
