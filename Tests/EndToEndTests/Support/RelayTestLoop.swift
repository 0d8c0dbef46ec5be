import Dispatch
import Glibc
import HTTP
@testable import MailroomNet
import MailroomService

/// One of MailroomNet's own event loops, running on a thread of its own as the server runs
/// them, for relay clients to send on. It stops, and its thread is joined, when it goes away.
final class RelayTestLoop {
    let loop: EventLoop
    private let thread: pthread_t
    private let claim: PortClaim
    private var clients: [RelayClient] = []

    init() throws {
        guard LibeventThreads.enabled else { throw TestFailure("evthread_use_pthreads failed") }
        // mailroom's main ignores SIGPIPE, and so must this process: libevent writes with
        // writev, so a relay that hangs up while the client writes would end the tests.
        signal(SIGPIPE, SIG_IGN)
        // A loop needs a listener; nothing connects to this one.
        let (sockets, _, claim) = try ListeningSocket.open(host: "127.0.0.1", port: 0, count: 1)
        let handover = Handover()
        let socket = sockets[0]
        // The loop is built on the thread that runs it, as `Server` builds its loops.
        let started = startThread {
            let loop: EventLoop
            do {
                loop = try EventLoop(
                    socket: socket, configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
                    handler: { _ in Response(status: .notFound) }, errorPage: ErrorPage.response(for:),
                    log: AccessLog(isEnabled: false, metrics: Metrics()), admission: Admission(maxTotal: 0, maxPerAddress: 0),
                    refusals: RefusalLog("HTTP", write: { _ in }))
            } catch {
                handover.failure = "\(error)"
                handover.ready.signal()
                return
            }
            handover.loop = loop
            handover.ready.signal()
            loop.run()
        }
        guard case .success(let thread) = started else {
            claim.release()
            throw TestFailure("cannot start the loop's thread")
        }
        guard handover.ready.wait(timeout: .now() + 10) == .success, let loop = handover.loop else {
            claim.release()
            throw TestFailure("the event loop did not start: \(handover.failure ?? "no word within 10 s")")
        }
        self.loop = loop
        self.thread = thread
        self.claim = claim
    }

    deinit {
        // A connection still open or saying QUIT when the loop stops would be cut off and its memory
        // never freed, which the leak checker would rightly report.
        let deadline = Deadline(10)
        for client in clients { client.quit() }
        while clients.contains(where: { $0.attemptsInFlight > 0 || $0.connectionsOpen > 0 }) && !deadline.hasPassed {
            _ = poll(nil, 0, 5)
        }
        loop.stopper.stop()
        pthread_join(thread, nil)
        claim.release()
    }

    /// A relay client on this loop.
    func client(_ configuration: RelayConfiguration) -> RelayClient {
        let client = RelayClient(configuration: configuration, loop: loop)
        clients.append(client)
        return client
    }

    /// The loop passed from its thread to the test's; the semaphore orders the two.
    private final class Handover: @unchecked Sendable {
        var loop: EventLoop?
        var failure: String?
        let ready = DispatchSemaphore(value: 0)
    }
}

/// What one `RelayClient.send` came to, gathered across the loop's thread and the test's.
final class RelayOutcome: Sendable {
    private let state = SharedValue<(askedBeforeEnd: Int, replies: [RelayReply]?)>((0, nil))
    private let done = DispatchSemaphore(value: 0)

    /// Sends `message` on `client`, answering the question before the end with `proceed`, and
    /// waits at most `seconds` for the outcome.
    static func send(
        _ message: RelayMessage, on client: RelayClient, proceed: Bool? = true, within seconds: Double = 20
    ) throws -> RelayOutcome {
        let outcome = RelayOutcome()
        client.send(message, beforeEnd: { decide in
            outcome.state.withLock { $0.askedBeforeEnd += 1 }
            // nil: the caller never answers.
            if let proceed { decide(proceed) }
        }, completion: { replies in
            outcome.state.withLock { $0.replies = replies }
            outcome.done.signal()
        })
        guard outcome.done.wait(timeout: .now() + seconds) == .success else {
            throw TestFailure("no outcome within \(seconds) s")
        }
        return outcome
    }

    var replies: [RelayReply] { state.value.replies ?? [] }
    /// How many times the client asked before the end of the data.
    var askedBeforeEnd: Int { state.value.askedBeforeEnd }
}

extension RelayReply {
    var isDeferred: Bool {
        if case .deferred = self { return true }
        return false
    }

    var isRefused: Bool {
        if case .refused = self { return true }
        return false
    }

    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}
