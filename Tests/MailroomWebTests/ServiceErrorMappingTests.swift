import HTTP
import MailroomService
import Testing
@testable import MailroomWeb

/// The web door says each of the service's errors with one status.
@Suite struct ServiceErrorMappingTests {
    @Test(arguments: [
        (ServiceError.notFound("Gone."), 404), (.refused("Gone."), 400), (.badInput("Gone."), 400),
        (.tooLarge("Gone."), 413), (.unavailable("Gone."), 500),
    ])
    func eachServiceErrorHasOneStatus(_ error: ServiceError, _ code: Int) {
        let answer = HTTPError(error)
        #expect(answer.status.code == code)
        #expect(answer.message == "Gone.")
    }

    @Test func anHTTPErrorThrownByACommandPassesThrough() {
        let refusal = HTTPError(.unprocessableContent, "Too long.")
        #expect(HTTPError(refusal as any Error) == refusal)
        #expect(HTTPError(ServiceError.badInput("No.") as any Error).status == .badRequest)
    }
}
