import MailroomCore
import MailroomService
import MailroomStore
import Testing

/// The store's errors reach the doors as the service's: a refusal is the request's fault,
/// anything else is storage failing.
@Suite struct ServiceErrorTests {
    @Test func aRefusalKeepsItsSentence() {
        let error = ServiceError(StoreError.refused(.invalidName("That name is taken.")))
        #expect(error == .refused("That name is taken."))
    }

    @Test(arguments: [StoreError.failed("disk full"), .closed, .sqlite(code: 10, message: "disk I/O error", sql: nil)])
    func aStorageFailureIsUnavailableAndSaysWhatFailed(_ failure: StoreError) {
        let error = ServiceError(failure, doing: ServiceError.reading)
        guard case .unavailable(let reason) = error else {
            Issue.record("expected unavailable, got \(error)")
            return
        }
        #expect(reason.hasPrefix("Mailroom could not read its database. ("))
    }

    @Test func storingTurnsAThrownStoreErrorIntoTheService() {
        #expect(throws: ServiceError.refused("No.")) {
            try storing { () throws(StoreError) in throw .refused(.invalidName("No.")) }
        }
    }
}
