@testable import MailroomWeb
import Testing

/// Wrong guesses per address: the growing wait, what does not reset it, and when it is forgotten.
@Suite struct GuessesTests {
    @Test func eachWrongGuessDoublesTheWaitUpToAMinute() {
        let guesses = Guesses()
        var waits: [Int64] = []
        for _ in 0..<8 {
            guesses.failed("192.0.2.1", now: 1_000)
            if case .wait(let seconds, _) = guesses.check("192.0.2.1", now: 1_000) { waits.append(seconds) }
        }
        #expect(waits == [2, 4, 8, 16, 32, 60, 60, 60])
        #expect(guesses.check("192.0.2.2", now: 1_000) == .mayTry)
    }

    /// Only the first refusal during a wait is worth a log line.
    @Test func onlyTheFirstGuessDuringAWaitIsMarkedFirst() {
        let guesses = Guesses()
        guesses.failed("192.0.2.1", now: 1_000)
        #expect(guesses.check("192.0.2.1", now: 1_000) == .wait(seconds: 2, first: true))
        #expect(guesses.check("192.0.2.1", now: 1_001) == .wait(seconds: 1, first: false))
        #expect(guesses.check("192.0.2.1", now: 1_002) == .mayTry)
        guesses.failed("192.0.2.1", now: 1_002)
        #expect(guesses.check("192.0.2.1", now: 1_002) == .wait(seconds: 4, first: true))
    }

    /// The count goes on after the wait (a right guess in between changes nothing) and is
    /// forgotten only after a quiet quarter of an hour.
    @Test func theCountIsForgottenOnlyAfterAQuietQuarterOfAnHour() {
        let guesses = Guesses()
        #expect(guesses.failed("192.0.2.1", now: 1_000) == 1)
        #expect(guesses.failed("192.0.2.1", now: 1_010) == 2)
        #expect(guesses.failed("192.0.2.1", now: 1_020 + Guesses.forgetAfter) == 1)
    }

    /// The length counts in full: the old comparison folded it into 8 bits, so an empty secret
    /// and 256 NUL bytes compared equal.
    @Test(arguments: [0, 1, 255, 256, 257, 512])
    func secretsOfDifferentLengthsDiffer(extra: Int) {
        let wanted = Array("s3cret".utf8)
        #expect(Secret.equal(wanted, wanted))
        #expect(!Secret.equal([], [UInt8](repeating: 0, count: 256)))
        if extra > 0 {
            #expect(!Secret.equal(wanted, wanted + [UInt8](repeating: 0, count: extra)))
            #expect(!Secret.equal(wanted + [UInt8](repeating: 0, count: extra), wanted))
        }
    }
}
