import HTTP
import Testing
@testable import MailroomNet

/// The order in which a loop takes what worker threads and the event hub hand it: a person's
/// answer never waits behind a pass over every event stream.
@Suite struct HandbacksTests {
    private func answer(_ serial: UInt64) -> Handback {
        .answer(Answer(serial: serial, response: Response(status: .seeOther), method: .post, target: "/mailboxes/inbox",
                       keepAlive: true, echoKeepAlive: false, started: Clock.now))
    }

    private func names(_ handbacks: [Handback]) -> [String] {
        handbacks.map { handback in
            switch handback {
            case .answer(let answer): "answer \(answer.serial)"
            case .stored(let serial, _): "stored \(serial)"
            case .events: "events"
            }
        }
    }

    @Test func answersGoBeforeThePassOverTheStreamsWhateverOrderTheyCameIn() {
        var queue = Handbacks()
        queue.append(.events)
        queue.append(answer(1))
        queue.append(.stored(serial: 2, outcome: .stored("queued")))
        queue.append(answer(3))
        #expect(names(queue.takeAll()) == ["answer 1", "stored 2", "answer 3", "events"])
        #expect(queue.takeAll().isEmpty)
    }

    @Test func manyWakeUpsFromTheHubMakeOnePass() {
        var queue = Handbacks()
        for _ in 0..<5 { queue.append(.events) }
        #expect(names(queue.takeAll()) == ["events"])
    }

    @Test func answersTakenDuringAPassLeaveTheWakeUpForTheNextTurn() {
        var queue = Handbacks()
        queue.append(answer(7))
        queue.append(.events)
        #expect(names(queue.takeAnswers()) == ["answer 7"])
        #expect(queue.takeAnswers().isEmpty)
        #expect(names(queue.takeAll()) == ["events"])
    }
}
