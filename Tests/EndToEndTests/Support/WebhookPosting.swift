import Dispatch
import Glibc
@testable import MailroomNet

/// What one `WebhookClient.post` came to, gathered across the loop's thread and the test's.
struct WebhookPosting {
    let result: WebhookResult
    /// From the call to the completion.
    let seconds: Double
    /// Whether the completion ran on the loop's thread rather than the caller's.
    let calledOnAnotherThread: Bool

    /// Posts `delivery` on `client` and waits at most `seconds` for the result.
    static func post(_ delivery: WebhookDelivery, on client: WebhookClient, within seconds: Double = 20) throws -> WebhookPosting {
        let state = SharedValue<(result: WebhookResult?, calls: Int, thread: pthread_t?)>((nil, 0, nil))
        let done = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        let start = clock.now
        client.post(delivery) { result in
            state.withLock { state in
                state.calls += 1
                if state.result == nil { state.result = result }
                state.thread = pthread_self()
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success, let result = state.value.result else {
            throw TestFailure("no result within \(seconds) s")
        }
        let elapsed = start.duration(to: clock.now)
        let (whole, fraction) = elapsed.components
        let thread = state.value.thread
        return WebhookPosting(
            result: result, seconds: Double(whole) + Double(fraction) / 1e18,
            calledOnAnotherThread: thread.map { pthread_equal($0, pthread_self()) == 0 } ?? false)
    }

    /// Waits until the client has let go of every delivery (each connection freed).
    static func waitUntilIdle(_ client: WebhookClient, within seconds: Double = 20) throws {
        let deadline = Deadline(seconds)
        while true {
            let answered = DispatchSemaphore(value: 0)
            let count = SharedValue(-1)
            client.countInFlight { value in
                count.withLock { $0 = value }
                answered.signal()
            }
            guard answered.wait(timeout: .now() + deadline.remaining) == .success else { break }
            if count.value == 0 { return }
            guard !deadline.hasPassed else { break }
            // Tear-down happens on the loop's next turn after the result: a short wait suffices.
            _ = poll(nil, 0, 10)
        }
        throw TestFailure("deliveries still in flight after \(seconds) s")
    }
}

extension WebhookResult {
    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }

    /// The reason of a `.retry`, or "" for the others.
    var reason: String {
        if case .retry(let reason) = self { return reason }
        return ""
    }
}

extension WebhookClient {
    /// A client on a test loop, with a short timeout unless told otherwise.
    static func onTestLoop(_ loop: RelayTestLoop, trusting certificates: String? = nil, timeoutSeconds: Int = 10) -> WebhookClient {
        // mailroom's main ignores SIGPIPE; a receiver that hangs up mid-write must not end the
        // test process either.
        signal(SIGPIPE, SIG_IGN)
        return WebhookClient(loop: loop.loop, trustedCertificates: certificates, timeoutSeconds: timeoutSeconds)
    }
}
