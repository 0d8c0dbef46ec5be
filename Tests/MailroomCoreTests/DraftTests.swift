import MailroomCore
import Testing

struct InvalidDraft: Sendable, CustomTestStringConvertible {
    let name: String
    let draft: Draft
    let problems: [DraftError.Problem]

    var testDescription: String { name }
}

let invalidDrafts: [InvalidDraft] = [
    InvalidDraft(name: "empty subject", draft: Draft(subject: ""), problems: [.subjectEmpty]),
    InvalidDraft(name: "spaces-only subject", draft: Draft(subject: "     "), problems: [.subjectEmpty]),
    InvalidDraft(name: "mixed white space subject", draft: Draft(subject: " \t\n\r\n "), problems: [.subjectEmpty]),
    InvalidDraft(name: "201-character subject", draft: Draft(subject: text(201)), problems: [.subjectTooLong]),
    InvalidDraft(
        name: "201-character subject inside spaces", draft: Draft(subject: "  " + text(201) + "  "),
        problems: [.subjectTooLong]),
    InvalidDraft(
        name: "10,001-character body", draft: Draft(subject: "Hi", body: text(10_001)), problems: [.bodyTooLong]),
    InvalidDraft(
        name: "101-character author", draft: Draft(subject: "Hi", author: text(101)), problems: [.authorTooLong]),
    InvalidDraft(
        name: "every field wrong", draft: Draft(subject: " ", body: text(10_001), author: text(101)),
        problems: [.subjectEmpty, .bodyTooLong, .authorTooLong]),
    InvalidDraft(
        name: "long subject and long body",
        draft: Draft(subject: text(300), body: text(20_000)),
        problems: [.subjectTooLong, .bodyTooLong]),
]

@Suite struct DraftTests {
    @Test(arguments: invalidDrafts)
    func validationReportsEveryProblemInFieldOrder(_ example: InvalidDraft) {
        let error = #expect(throws: DraftError.self) { try example.draft.validated() }
        #expect(error?.problems == example.problems)
    }

    @Test func limitsAreThoseOfTheDesign() {
        #expect(Draft.maximumSubjectLength == 200)
        #expect(Draft.maximumBodyLength == 10_000)
    }

    @Test func subjectAndAuthorAreTrimmedOnBothSidesAndBodyOnlyAtTheEnd() throws {
        let draft = Draft(subject: "  \tHello world \n", body: "  indented\n  text \n\n", author: " Ann ")
        let valid = try draft.validated()
        #expect(valid.subject == "Hello world")
        #expect(valid.body == "  indented\n  text")
        #expect(valid.author == "Ann")
    }

    @Test(arguments: [
        Draft(subject: text(200)),
        Draft(subject: "   " + text(200) + "\n"),
        Draft(subject: "a"),
        Draft(subject: "Hi", body: text(10_000)),
        Draft(subject: "Hi", body: text(10_000) + "   \n"),
        Draft(subject: "Hi", author: text(100)),
        Draft(subject: "Hi", body: ""),
    ])
    func draftsAtTheLimitsAreAccepted(_ draft: Draft) throws {
        let valid = try draft.validated()
        #expect(valid.subject.count <= 200 && !valid.subject.isEmpty)
        #expect(valid.body.count <= 10_000)
        #expect(valid.author.count <= 100)
    }

    @Test func lengthsCountCharactersNotBytesOrScalars() throws {
        // 200 family emoji: each one Character, many scalars and bytes.
        let valid = try Draft(subject: text(200, "👨‍👩‍👧"), body: text(10_000, "é")).validated()
        #expect(valid.subject.count == 200)
        #expect(valid.body.count == 10_000)
    }

    @Test func everyProblemHasADistinctHumanMessage() {
        let problems: [DraftError.Problem] = [.subjectEmpty, .subjectTooLong, .bodyTooLong, .authorTooLong]
        let messages = problems.map(\.message)
        #expect(Set(messages).count == problems.count)
        #expect(messages.allSatisfy { !$0.isEmpty && $0.hasSuffix(".") })
        #expect(DraftError.Problem.subjectTooLong.message.contains("200"))
        #expect(DraftError.Problem.bodyTooLong.message.contains("10000"))
    }
}
