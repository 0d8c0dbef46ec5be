import Glibc
import HTTP
import Synchronization
private import CLibevent

/// One client connection: reads requests, answers them in order, and closes when told to,
/// when the client goes away, or when it takes too long.
final class Connection {
    unowned let loop: EventLoop
    /// Names this connection for answers coming back from worker threads.
    let serial: UInt64
    /// A request is being answered on a worker thread; later requests wait their turn.
    var isAwaitingReply = false
    let bufferevent: OpaquePointer
    let peer: String
    /// Bytes received but not yet part of an answered request.
    var input: [UInt8] = []
    /// Set once the last answer is queued: close when it has been written.
    var closesAfterWrite = false
    /// Fires if a request that has started does not arrive whole in time (a slow trickle).
    private var requestDeadline: OpaquePointer?
    private var deadlineArmed = false
    var isClosed = false
    /// The answer is an event stream: the connection stays open for the hub's events.
    var isStream = false
    var streamStartedAt: Int64 = 0
    /// The id of the last event this stream was written (or told to start after).
    var lastEventID: Int64 = 0
    /// The body being made a piece at a time (`Response.stream`) and how much of it is still to
    /// come; later requests wait until it is all queued.
    var outgoing: (source: BodySource, remaining: Int)?
    /// The loop's limits, told this client's address (an upload's token is counted per address).
    private let limits: RequestLimits
    /// Reading stopped because too much input waits behind an answer still going out.
    var readingHeldBack = false
    /// Reads the socket itself, one `recv` a wake-up into the loop's buffer: a bufferevent
    /// asks the kernel how much is waiting before every read, a system call per request.
    /// The bufferevent only writes.
    private var reader: OpaquePointer?
    private var isReading = false
    /// Whether the client's silence ends the connection: not while it takes a long download
    /// or follows an event stream.
    private var readTimesOut = true
    /// The closing answer refuses a request the client may still be sending: close as
    /// `closeAfterLastAnswer` says, not at once.
    var lingersOnClose = false
    /// When a lingering close gives up on the client's end and closes anyway; nil while not
    /// lingering.
    private var lingerEnds: Clock.Instant?
    /// How long a refused client is given to read its answer and close its side.
    static let lingerSeconds = 2
    let socket: Socket
    /// How much of a streamed body is asked for at once, and about the most libevent holds of
    /// it: a slow reader keeps a piece or two in memory, not the body.
    static let streamPiece = 256 * 1_024

    /// Where every answer, event and piece of a download is written.
    var writer: SocketWriter { SocketWriter(bufferevent, socket: socket) }

    init?(loop: EventLoop, socket: Int32, peer: String, serial: UInt64) {
        guard let bufferevent = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        self.loop = loop
        self.serial = serial
        self.bufferevent = bufferevent
        self.socket = Socket(socket)
        self.peer = peer
        var limits = loop.limits
        limits.peer = peer
        self.limits = limits
        let context = Unmanaged.passUnretained(self).toOpaque()
        requestDeadline = event_new(loop.base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().requestTimedOut()
        }, context)
        // libevent writes at most 16 KiB per call by default; a page just over that would then
        // wait for the client's delayed ACK.
        bufferevent_set_max_single_write(bufferevent, 1 << 20)
        bufferevent_setcb(bufferevent, { _, context in
            guard let context else { return }
            Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().readable()
        }, { _, context in
            guard let context else { return }
            Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().written()
        }, { _, events, context in
            guard let context else { return }
            Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().event(events)
        }, context)
        // Silence in either direction for this long ends the connection: the bufferevent
        // times its writes, the reader its reads.
        var idle = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, nil, &idle)
        bufferevent_enable(bufferevent, Int16(EV_WRITE))
        reader = event_new(loop.base, socket, Int16(EV_READ | EV_PERSIST), { _, what, context in
            guard let context else { return }
            let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
            if what & Int16(EV_TIMEOUT) != 0 {
                connection.event(Int16(BEV_EVENT_TIMEOUT | BEV_EVENT_READING))
            } else {
                connection.readable()
            }
        }, context)
        guard reader != nil else {
            // The caller closes the socket when no connection is made of it.
            bufferevent_setfd(bufferevent, -1)
            bufferevent_free(bufferevent)
            if let requestDeadline { event_free(requestDeadline) }
            return nil
        }
        startReading()
    }

    /// Reads on (again), timing the client's silence unless `readTimesOut` is off.
    func startReading(timeout: Int? = nil) {
        guard let reader, !isClosed else { return }
        // Added again from scratch: adding a pending event without a timeout keeps its old one.
        event_del(reader)
        isReading = true
        if readTimesOut {
            var idle = timeval(tv_sec: timeout ?? loop.configuration.timeoutSeconds, tv_usec: 0)
            event_add(reader, &idle)
        } else {
            event_add(reader, nil)
        }
    }

    /// Stops reading: what the client sends meanwhile waits in the socket.
    func stopReading() {
        isReading = false
        if let reader { event_del(reader) }
    }

    /// Turns the read timeout on or off, for reading now or later.
    func timeReads(_ on: Bool) {
        readTimesOut = on
        if isReading { startReading() }
    }

    /// During shutdown: an idle connection closes now; one with a request arriving or an answer
    /// being written finishes it first (keep-alive is off while stopping). True if it is busy.
    func finishOrClose() -> Bool {
        if isStream || lingerEnds != nil {
            close()
            return false
        }
        let writing = writer.queued > 0 || outgoing != nil
        guard writing || isAwaitingReply || !input.isEmpty || hasUnreadBytes else {
            close()
            return false
        }
        if writing { closesAfterWrite = true }
        return true
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let requestDeadline {
            event_del(requestDeadline)
            event_free(requestDeadline)
        }
        requestDeadline = nil
        // Lets go of a body not yet sent, and what its source holds (a download slot).
        outgoing = nil
        if isStream { loop.log.metrics.eventClients.wrappingSubtract(1, ordering: .relaxed) }
        if let reader {
            event_del(reader)
            event_free(reader)
        }
        reader = nil
        isReading = false
        bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        bufferevent_free(bufferevent)
        loop.closed(self)
    }

    /// Closes once the last answer is written: at once, or for a refusal (`lingersOnClose`),
    /// as RFC 9112 (9.6) asks. A refused client may still be sending; closing with its bytes
    /// unread would answer them with a reset, which can destroy the refusal before the client
    /// reads it. So the answer is followed by the end of this side (FIN), and whatever arrives
    /// is read and dropped until the client closes too, for at most `lingerSeconds`.
    func closeAfterLastAnswer() {
        guard lingersOnClose, !loop.isStopping, Glibc.shutdown(socket.descriptor, Int32(SHUT_WR)) == 0 else {
            close()
            return
        }
        lingerEnds = Clock.Instant(nanoseconds: Clock.now.nanoseconds + UInt64(Self.lingerSeconds) * 1_000_000_000)
        disarmDeadline()
        input = []
        readTimesOut = true
        startReading(timeout: Self.lingerSeconds)
    }

    /// Whether the client has sent bytes that this loop has not read yet.
    private var hasUnreadBytes: Bool {
        socket.hasUnreadBytes
    }

    // MARK: Callbacks

    private func readable() {
        guard isReading, !isClosed else { return }
        let buffer = loop.readBuffer
        let received: Int?
        do {
            received = try socket.receive(into: buffer)
        } catch {
            event(Int16(BEV_EVENT_ERROR | BEV_EVENT_READING))
            return
        }
        guard let received else { return }
        guard received > 0 else {
            event(Int16(BEV_EVENT_EOF | BEV_EVENT_READING))
            return
        }
        if let lingerEnds {
            // Dropped; a client that sends on and on is cut off when its time is up.
            if Clock.now.nanoseconds >= lingerEnds.nanoseconds { close() }
            return
        }
        // A stream's client has nothing more to ask: what it sends is dropped.
        guard !isStream else { return }
        input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<received]))
        // Bytes held back behind an answer still being made or sent (pipelining, a streamed
        // download, a client that does not read) count against the limit: past it, reading
        // stops until the answer is out (`written`, `deliver`).
        let outputPending = writer.queued >= 1 << 20
        if input.count > maxBufferedBytes && (isAwaitingReply || closesAfterWrite || outgoing != nil || outputPending) {
            stopReading()
            readingHeldBack = true
        }
        process()
    }

    /// The most that one request can take: its head and body limits, and a little more.
    private var maxBufferedBytes: Int {
        loop.limits.maxURLBytes + loop.limits.maxHeaderBytes + loop.limits.largestBody + 4_096
    }

    private func written() {
        if outgoing != nil {
            pump()
            // Called again once what `pump` queued is written.
            guard outgoing == nil, !isClosed, writer.queued == 0 else { return }
        }
        if closesAfterWrite {
            if lingerEnds == nil { closeAfterLastAnswer() }
            return
        }
        if readingHeldBack && !isAwaitingReply {
            readingHeldBack = false
            startReading()
        }
        if !input.isEmpty {
            // Requests held back while answers piled up (see `process`) go on now.
            process()
        }
    }

    fileprivate func event(_ events: Int16) {
        let pending = writer.queued
        if events & Int16(BEV_EVENT_EOF) != 0 && events & Int16(BEV_EVENT_ERROR) == 0 && (pending > 0 || outgoing != nil) {
            // The client stopped sending but still reads: finish the answers, then close.
            closesAfterWrite = true
            stopReading()
            return
        }
        close()
    }

    private func requestTimedOut() {
        deadlineArmed = false
        input = []
        lingersOnClose = true
        answer(loop.errorPage(HTTPError(
            Status(code: 408, reason: "Request Timeout"),
            "The request did not arrive in \(loop.configuration.timeoutSeconds) seconds.")),
            method: .get, target: "-", keepAlive: false, started: Clock.now)
    }

    // MARK: Requests

    /// Answers every whole request in the buffer, in order (pipelining), and no more.
    func process() {
        while !closesAfterWrite && !isClosed && !isAwaitingReply && outgoing == nil {
            // A client that pipelines without reading its answers waits until they are written.
            guard writer.queued < 1 << 20 else { return }
            guard !input.isEmpty else {
                disarmDeadline()
                break
            }
            let started = Clock.now
            // The same bytes as a GET this loop answered for this address, while its answer is
            // current: sent again without parsing or the application (`RepeatedAnswers`).
            if !loop.isStopping, let known = loop.repeated.answer(for: input, peer: peer, date: loop.date) {
                disarmDeadline()
                input.removeFirst(known.request.count)
                loop.log.metrics.repeatedAnswers.wrappingAdd(1, ordering: .relaxed)
                answer(known.response, method: .get, target: known.target, keepAlive: true, head: known.head, file: known.file,
                       started: started)
                continue
            }
            switch RequestParser.parse(input, limits: limits) {
            case .incomplete:
                guard input.count <= maxBufferedBytes else {
                    refuse(HTTPError(.contentTooLarge, "The request is larger than Mailroom accepts."), started: started)
                    return
                }
                armDeadline()
                return
            case .request(var request, let consumed, let keepAlive):
                disarmDeadline()
                request.peer = peer
                let echo = keepAlive && request.headers["Connection"]?.lowercased() == "keep-alive"
                if loop.mayWait(request) {
                    input.removeFirst(consumed)
                    // A change waits for its commit: off the loop, so the loop serves others and
                    // changes from many connections can be committed together.
                    isAwaitingReply = true
                    let (handler, replies, serial, posted) = (loop.handler, loop.replies, serial, request)
                    Workers.shared.submit {
                        replies.post(.answer(Answer(
                            serial: serial, response: handler(posted), method: posted.method, target: posted.target,
                            keepAlive: keepAlive, echoKeepAlive: echo, started: started)))
                    }
                    return
                }
                let response = loop.handler(request)
                if request.method == .get && keepAlive && !loop.isStopping && response.repeatable != nil {
                    loop.repeated.keep(input[..<consumed], peer: peer, response: response, target: request.target, echoKeepAlive: echo)
                }
                input.removeFirst(consumed)
                if request.method == .get && response.isEventStream, let events = loop.events {
                    guard !loop.isStopping else {
                        answer(loop.errorPage(HTTPError(.serviceUnavailable, "Mailroom is stopping.")), method: request.method,
                               target: request.target, keepAlive: false, started: started)
                        return
                    }
                    startStream(response, request: request, events: events, started: started)
                    return
                }
                answer(response, method: request.method, target: request.target, keepAlive: keepAlive && !loop.isStopping,
                       echoKeepAlive: echo, started: started)
            case .rejected(let error, let consumed, let keepAlive):
                disarmDeadline()
                input.removeFirst(consumed)
                lingersOnClose = !keepAlive
                answer(loop.errorPage(error), method: .get, target: "-", keepAlive: keepAlive && !loop.isStopping, started: started)
            case .refused(let error):
                refuse(error, started: started)
                return
            }
        }
    }


    func armDeadline() {
        guard !deadlineArmed, let requestDeadline else { return }
        deadlineArmed = true
        var wait = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        event_add(requestDeadline, &wait)
    }

    func disarmDeadline() {
        guard deadlineArmed, let requestDeadline else { return }
        deadlineArmed = false
        event_del(requestDeadline)
    }
}
