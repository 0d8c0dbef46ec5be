import Glibc
@testable import MailroomNet
import Testing

/// The webhook client against a Python receiver on loopback: what goes over the wire, how
/// each kind of answer (or none) is reported, and that every delivery lets go of its connection.
@Suite struct WebhookClientTests {
    static let body = Array(#"{"event":"mail.received","id":42,"subject":"Grüße ✉"}"#.utf8)
    static let headers = [("X-Mailroom-Signature", "sha256=0f3c9a"), ("X-Mailroom-Delivery", "42")]

    static func delivery(_ url: String, headers: [(String, String)] = headers) throws -> WebhookDelivery {
        WebhookDelivery(target: try #require(WebhookTarget(url)), body: body, headers: headers)
    }

    @Test func a200DeliveryCarriesTheBodyAndHeadersByteForByte() throws {
        let receiver = try WebhookReceiver()
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(
            try Self.delivery("http://127.0.0.1:\(receiver.port)/hooks/mail?kind=new#ignored"), on: client)
        #expect(posting.result == .delivered(status: 200))
        #expect(posting.calledOnAnotherThread)
        let request = try receiver.firstRequest()
        let expected = [
            "POST /hooks/mail?kind=new HTTP/1.1",
            "Host: 127.0.0.1:\(receiver.port)",
            "Content-Type: application/json",
            "User-Agent: Mailroom",
            "X-Mailroom-Signature: sha256=0f3c9a",
            "X-Mailroom-Delivery: 42",
            "Connection: close",
            "Content-Length: \(Self.body.count)",
        ].joined(separator: "\r\n")
        #expect(request.headText == expected)
        #expect(request.body == Self.body)
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test(arguments: [
        (200, WebhookResult.delivered(status: 200)), (204, .delivered(status: 204)), (202, .delivered(status: 202)),
        (404, .rejected(status: 404)), (410, .rejected(status: 410)), (400, .rejected(status: 400)),
        (301, .rejected(status: 301)),
    ])
    func theStatusDecidesTheResult(status: Int, result: WebhookResult) throws {
        let receiver = try WebhookReceiver(status: status, bodyBytes: status == 204 ? 0 : 30)
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result == result)
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test(arguments: [500, 503, 429, 408])
    func serverTroubleAndThrottlingAreRetried(status: Int) throws {
        let receiver = try WebhookReceiver(status: status, bodyBytes: 12)
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result.isRetry)
        #expect(posting.result.reason.hasPrefix("The receiver at 127.0.0.1:\(receiver.port) answered \(status)"), "\(posting.result)")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aRefusedConnectionIsRetried() throws {
        let port = try FreePort.pick()
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(port)/hook"), on: client)
        #expect(posting.result == .retry("Cannot connect to 127.0.0.1:\(port)."))
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aReceiverThatNeverAnswersIsRetriedAfterTheTimeout() throws {
        let receiver = try WebhookReceiver(silent: true)
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, timeoutSeconds: 1)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result == .retry("The receiver at 127.0.0.1:\(receiver.port) did not answer within 1 s."))
        #expect(posting.seconds >= 0.9 && posting.seconds < 5, "\(posting.seconds) s")
        // The request went out whole, and the client hung up.
        #expect(try receiver.firstRequest().body == Self.body)
        _ = try receiver.waitFor("closed")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aLargeAnswerIsCutOffAndTheStatusStillCounts() throws {
        let receiver = try WebhookReceiver(status: 200, bodyBytes: 4 * 1_024 * 1_024)
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result == .delivered(status: 200))
        // The receiver's write fails once the client has closed, long before 4 MiB went out.
        _ = try receiver.waitFor("closed")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aNameIsLookedUpWithoutBlockingTheLoop() throws {
        let receiver = try WebhookReceiver()
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("http://localhost:\(receiver.port)/by-name"), on: client)
        #expect(posting.result == .delivered(status: 200))
        let request = try receiver.firstRequest()
        #expect(request.headText.hasPrefix("POST /by-name HTTP/1.1\r\nHost: localhost:\(receiver.port)\r\n"), "\(request.headText)")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test(arguments: [
        ("X-Evil", "a\r\nInjected: yes"), ("X-Evil", "a\nb"), ("X-Evil", "a\u{0}b"), ("Bad Name", "v"), ("", "v"),
        ("Content-Length", "1"), ("host", "elsewhere.test"),
    ])
    func headersThatCouldSplitTheRequestAreNeverSent(name: String, value: String) throws {
        let receiver = try WebhookReceiver()
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let url = "http://127.0.0.1:\(receiver.port)/"
        let refused = try WebhookPosting.post(try Self.delivery(url, headers: [("X-Fine", "1"), (name, value)]), on: client)
        #expect(refused.result.isRetry && refused.result.reason.hasSuffix("nothing was sent."), "\(refused.result)")
        // A good delivery after it: the receiver's only request.
        #expect(try WebhookPosting.post(try Self.delivery(url), on: client).result == .delivered(status: 200))
        let requests = try receiver.requests(afterClosing: 1)
        #expect(requests.count == 1)
        #expect(!(requests.first?.headText.contains("X-Fine") ?? true))
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func manyDeliveriesFromSeveralThreadsAllArrive() throws {
        let receiver = try WebhookReceiver()
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let results = SharedValue<[WebhookResult]>([])
        let port = receiver.port
        try TestThreads.runTogether(4) { thread in
            for index in 0..<6 {
                guard let target = WebhookTarget("http://127.0.0.1:\(port)/t\(thread)/\(index)"),
                      let posting = try? WebhookPosting.post(WebhookDelivery(target: target, body: Self.body, headers: []), on: client)
                else { continue }
                results.withLock { $0.append(posting.result) }
            }
        }
        #expect(results.value.count == 24)
        #expect(results.value.allSatisfy { $0 == .delivered(status: 200) }, "\(results.value)")
        let paths = try receiver.requests(afterClosing: 24).map { $0.headText.split(separator: " ")[1] }
        #expect(Set(paths).count == 24)
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aNameThatCannotBeFoundIsRetried() throws {
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, timeoutSeconds: 2)
        // Either the resolver says so, or the delivery's deadline passes first without it.
        let posting = try WebhookPosting.post(try Self.delivery("http://no-such-host.invalid/hook"), on: client)
        #expect(posting.result.isRetry, "\(posting.result)")
        #expect(posting.result.reason.hasPrefix("Cannot look up no-such-host.invalid")
                    || posting.result.reason == "No complete answer from no-such-host.invalid:80 within 4 s.",
                "\(posting.result)")
        try WebhookPosting.waitUntilIdle(client)
    }
}
