import Dispatch
import Glibc
import HTTP
import MailroomService
import Synchronization
private import CLibevent

/// One libevent `event_base` with its listener and connections, living on one thread.
///
/// libevent does the I/O; HTTP itself is read by `RequestParser`, so every answer, refusals
/// included, is Mailroom's own page.
final class EventLoop {
    let base: OpaquePointer
    var listener: OpaquePointer?
    private var stopEvent: OpaquePointer?
    private var stopDeadline: OpaquePointer?
    let handler: Handler
    /// Requests answered on a worker thread (see `Workers`), since they may wait on a commit.
    let mayWait: WaitPredicate
    let errorPage: ErrorHandler
    let configuration: ServerConfiguration
    let limits: RequestLimits
    let log: AccessLog
    var connections: [UInt64: Connection] = [:]
    /// Each connection's address, to count it out of `admission` when it closes.
    var peers: [UInt64: String] = [:]
    let admission: Admission
    let refusals: RefusalLog
    /// Re-enable a listener that was paused because a cap was reached or descriptors ran out.
    var resumeListener: OpaquePointer?
    var resumeMailListener: OpaquePointer?
    var mailListener: OpaquePointer?
    let mail: MailShared?
    var mailSessions: [UInt64: MailConnection] = [:]
    /// The hub whose events this loop writes to its event streams, and those streams.
    let events: EventHub?
    private var streams: [UInt64: Connection] = [:]
    private var listening: UInt64?
    private var heartbeat: OpaquePointer?
    /// Where SMTP sessions on this loop read their bytes: one at a time, as the loop runs them.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    var nextSerial: UInt64 = 0
    /// Answers computed on worker threads, waiting to be written by this loop.
    let replies = Replies()
    private var wakeEvent: OpaquePointer?
    private let housekeeping: Housekeeping?
    private var housekeepingTimer: OpaquePointer?
    private(set) var isStopping = false
    /// Answers this loop may send again for the same request (see `RepeatedAnswers`).
    var repeated = RepeatedAnswers()
    private var dateSecond: Int64 = -1
    private var dateText = ""

    /// Builds the loop on the calling thread, which must be the thread that runs it.
    init(
        socket: Int32, configuration: ServerConfiguration, handler: @escaping Handler,
        mayWait: @escaping WaitPredicate = { $0.method == .post },
        errorPage: @escaping ErrorHandler, log: AccessLog, admission: Admission, refusals: RefusalLog,
        housekeeping: Housekeeping? = nil, events: EventHub? = nil, mail: (socket: Int32, shared: MailShared)? = nil
    ) throws(ServerError) {
        guard let base = event_base_new() else { throw ServerError(description: "event_base_new failed") }
        self.base = base
        self.handler = handler
        self.mayWait = mayWait
        self.errorPage = errorPage
        self.configuration = configuration
        self.limits = RequestLimits(
            maxURLBytes: configuration.maxURLBytes, maxHeaderBytes: configuration.maxHeaderBytes,
            maxHeaderCount: configuration.maxHeaderCount, maxBodyBytes: configuration.maxBodyBytes,
            uploadPath: configuration.uploadPath, maxUploadBytes: configuration.maxUploadBytes,
            uploadAuthorization: configuration.uploadAuthorization)
        self.log = log
        self.admission = admission
        self.refusals = refusals
        self.housekeeping = housekeeping
        self.mail = mail?.shared
        self.events = events

        let context = Unmanaged.passUnretained(self).toOpaque()
        // Backlog 0: the socket is already listening.
        listener = evconnlistener_new(base, { _, fd, address, length, context in
            guard let context else { Socket(fd).close(); return }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
            loop.accept(fd, peer: EventLoop.describe(address, length))
        }, context, UInt32(LEV_OPT_CLOSE_ON_FREE), 0, socket)
        if let mail {
            mailListener = evconnlistener_new(base, { _, fd, address, length, context in
                guard let context else { Socket(fd).close(); return }
                let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
                loop.acceptMail(fd, peer: EventLoop.describe(address, length))
            }, context, UInt32(LEV_OPT_CLOSE_ON_FREE), 0, mail.socket)
        }
        // Without an error callback libevent logs every failed accept(2) and, the socket still
        // being readable, tries again at once: out of descriptors, that is a busy loop.
        if let listener {
            evconnlistener_set_error_cb(listener) { listener, context in
                guard let context else { return }
                Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().acceptFailed(listener, errno)
            }
        }
        if let mailListener {
            evconnlistener_set_error_cb(mailListener) { listener, context in
                guard let context else { return }
                Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().acceptFailed(listener, errno)
            }
        }
        resumeListener = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
            if !loop.isStopping, let listener = loop.listener { evconnlistener_enable(listener) }
        }, context)
        resumeMailListener = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
            if !loop.isStopping, let listener = loop.mailListener { evconnlistener_enable(listener) }
        }, context)
        stopEvent = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().beginStopping()
        }, context)
        wakeEvent = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().deliverReplies()
        }, context)
        replies.attach(wake: wakeEvent)
        if let events {
            let replies = replies
            listening = events.listen { replies.post(.events) }
            heartbeat = event_new(base, -1, Int16(EV_PERSIST), { _, _, context in
                guard let context else { return }
                Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().beat()
            }, context)
            var interval = timeval(tv_sec: max(configuration.heartbeatSeconds, 1), tv_usec: 0)
            if let heartbeat { event_add(heartbeat, &interval) }
        }
        if let housekeeping {
            housekeepingTimer = event_new(base, -1, Int16(EV_PERSIST), { _, _, context in
                guard let context else { return }
                let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
                loop.housekeeping?.task()
                // Refusals of the last second that no later refusal has reported yet.
                loop.refusals.flush(limits: loop.admission)
                if let mail = loop.mail { mail.refusals.flush(limits: mail.admission) }
            }, context)
            var interval = timeval(tv_sec: housekeeping.intervalSeconds, tv_usec: 0)
            if let housekeepingTimer { event_add(housekeepingTimer, &interval) }
        }
        guard listener != nil, stopEvent != nil, wakeEvent != nil, mail == nil || mailListener != nil,
              resumeListener != nil, resumeMailListener != nil else {
            if let listener { evconnlistener_free(listener) } else { Syscall.close(socket) }
            if let mailListener { evconnlistener_free(mailListener) } else if let mail { Syscall.close(mail.socket) }
            if let stopEvent { event_free(stopEvent) }
            replies.close()
            if let wakeEvent { event_free(wakeEvent) }
            if let resumeListener { event_free(resumeListener) }
            if let resumeMailListener { event_free(resumeMailListener) }
            event_base_free(base)
            throw ServerError(description: "evconnlistener_new failed")
        }
    }

    deinit {
        if let listening { events?.stopListening(listening) }
        if let heartbeat { event_free(heartbeat) }
        for connection in Array(connections.values) { connection.close() }
        for session in Array(mailSessions.values) { session.close() }
        replies.close()
        if let listener { evconnlistener_free(listener) }
        if let mailListener { evconnlistener_free(mailListener) }
        if let stopEvent { event_free(stopEvent) }
        if let wakeEvent { event_free(wakeEvent) }
        if let stopDeadline { event_free(stopDeadline) }
        if let housekeepingTimer { event_free(housekeepingTimer) }
        if let resumeListener { event_free(resumeListener) }
        if let resumeMailListener { event_free(resumeMailListener) }
        event_base_free(base)
        readBuffer.deallocate()
    }

    /// Runs until stopped and every connection has finished.
    func run() {
        event_base_dispatch(base)
        // Connections still open when the loop ends (the stop deadline passed) are closed now,
        // while the loop they call back into is alive; its deinit would be too late for that.
        for connection in Array(connections.values) { connection.close() }
        for session in Array(mailSessions.values) { session.close() }
    }

    /// A handle that another thread may use to stop this loop.
    var stopper: LoopStopper { LoopStopper(event: stopEvent) }

    /// Writes the answers that worker threads finished (a connection closed meanwhile gets none),
    /// then the hub's events.
    func deliverReplies() {
        for handback in replies.take() { deliver(handback) }
    }

    private func deliver(_ handback: Handback) {
        switch handback {
        case .answer(let answer): connections[answer.serial]?.deliver(answer)
        case .stored(let serial, let outcome): mailSessions[serial]?.stored(outcome)
        case .events: pushEvents()
        }
    }

    /// A connection whose answer is an event stream: from now on it is written every event.
    func addStream(_ connection: Connection) {
        streams[connection.serial] = connection
    }

    /// Writes the events each stream has not had yet. Streams that stand at the same event
    /// share one copy of what follows it. Every `fanOutSlice` streams, answers that came
    /// meanwhile (the post that caused the event, a `wait` it satisfied) are written first:
    /// a pass over thousands of streams takes tens of milliseconds, nearly all of it the kernel's.
    private func pushEvents() {
        guard let events, !streams.isEmpty else { return }
        let last = events.lastID
        // Per starting id: the bytes and the id they bring the stream to (an event published
        // meanwhile may be among them), or nil bytes when the events are no longer kept.
        var prepared: [Int64: (bytes: [UInt8]?, upTo: Int64)] = [:]
        var written = 0
        for stream in Array(streams.values) where stream.lastEventID < last {
            written += 1
            if written % Self.fanOutSlice == 0 {
                for handback in replies.takeAnswers() { deliver(handback) }
            }
            let from = stream.lastEventID
            if prepared[from] == nil {
                let missed = events.events(after: from)
                prepared[from] = (missed.map { $0.flatMap(\.bytes) }, missed?.last?.id ?? last)
            }
            if let batch = prepared[from] { stream.push(batch.bytes, upTo: batch.upTo) }
        }
    }

    /// Streams written between two looks for answers waiting: about 2 ms of writes here.
    static let fanOutSlice = 256

    /// A comment line on every stream: the client's and any proxy's sign of life.
    private func beat() {
        for stream in Array(streams.values) { stream.pushHeartbeat() }
    }

    func closed(_ connection: Connection) {
        connections[connection.serial] = nil
        if let peer = peers.removeValue(forKey: connection.serial) { admission.leave(peer) }
        streams[connection.serial] = nil
        if isStopping && connections.isEmpty && mailSessions.isEmpty { event_base_loopexit(base, nil) }
    }

    func closed(_ session: MailConnection) {
        mailSessions[session.serial] = nil
        if isStopping && connections.isEmpty && mailSessions.isEmpty { event_base_loopexit(base, nil) }
    }

    /// Stops accepting, lets each connection finish the request it is on, then ends the loop;
    /// connections still busy after the timeout are cut off.
    private func beginStopping() {
        guard !isStopping else { return }
        isStopping = true
        if let listener { evconnlistener_disable(listener) }
        if let mailListener { evconnlistener_disable(mailListener) }
        let busy = Array(connections.values).filter { $0.finishOrClose() }.count
        for session in Array(mailSessions.values) { _ = session.finishOrClose() }
        guard !connections.isEmpty || !mailSessions.isEmpty else {
            event_base_loopexit(base, nil)
            return
        }
        log.notice("mailroom: finishing \(busy) request\(busy == 1 ? "" : "s") in flight before stopping")
        let context = Unmanaged.passUnretained(self).toOpaque()
        stopDeadline = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue()
            event_base_loopexit(loop.base, nil)
        }, context)
        var wait = timeval(tv_sec: configuration.timeoutSeconds, tv_usec: 0)
        if let stopDeadline { event_add(stopDeadline, &wait) }
    }

    /// The `Date` header, formatted once a second.
    var date: String {
        let now = Int64(Glibc.time(nil))
        if now != dateSecond {
            dateSecond = now
            dateText = HTTPDate.string(now)
        }
        return dateText
    }

    private     static func describe(_ address: UnsafeMutablePointer<sockaddr>?, _ length: Int32) -> String {
        guard let address else { return "-" }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return "-"
        }
        let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // On a dual-stack listener an IPv4 client reads ::ffff:a.b.c.d: one client, one name,
        // for the per-address caps and the count of wrong guesses.
        if numeric.hasPrefix("::ffff:") && numeric.contains(".") { return String(numeric.dropFirst(7)) }
        return numeric
    }
}

/// Stops one event loop from another thread; safe once `evthread_use_pthreads` has run.
struct LoopStopper: @unchecked Sendable {
    fileprivate let event: OpaquePointer?

    func stop() {
        if let event { event_active(event, 0, 0) }
    }
}

/// Turns on libevent's locking once per process, before any event base exists.
enum LibeventThreads {
    static let enabled: Bool = evthread_use_pthreads() == 0
}
