import Glibc
import HTTP
import MailroomService
import Synchronization
private import CLibevent

/// One client connection: reads requests, answers them in order, and closes when told to,
/// when the client goes away, or when it takes too long.
final class Connection {
    private unowned let loop: EventLoop
    /// Names this connection for answers coming back from worker threads.
    let serial: UInt64
    /// A request is being answered on a worker thread; later requests wait their turn.
    private var isAwaitingReply = false
    private let bufferevent: OpaquePointer
    private let peer: String
    /// Bytes received but not yet part of an answered request.
    private var input: [UInt8] = []
    /// Set once the last answer is queued: close when it has been written.
    private var closesAfterWrite = false
    /// Fires if a request that has started does not arrive whole in time (a slow trickle).
    private var requestDeadline: OpaquePointer?
    private var deadlineArmed = false
    private var isClosed = false
    /// The answer is an event stream: the connection stays open for the hub's events.
    private var isStream = false
    private var streamStartedAt: Int64 = 0
    /// The id of the last event this stream was written (or told to start after).
    private(set) var lastEventID: Int64 = 0
    /// A stream whose client has not taken this much is dropped: it can reconnect and resume.
    private static let maxUnsentStreamBytes = 1 << 20
    /// The kernel's send buffer for an event stream (Linux doubles what is asked).
    private static let streamSendBufferBytes: Int32 = 16 * 1_024
    /// The body being made a piece at a time (`Response.stream`) and how much of it is still to
    /// come; later requests wait until it is all queued.
    private var outgoing: (source: BodySource, remaining: Int)?
    /// The loop's limits, told this client's address (an upload's token is counted per address).
    private let limits: RequestLimits
    /// Reading stopped because too much input waits behind an answer still going out.
    private var readingHeldBack = false
    /// How much of a streamed body is asked for at once, and about the most libevent holds of
    /// it: a slow reader keeps a piece or two in memory, not the body.
    static let streamPiece = 256 * 1_024

    init?(loop: EventLoop, socket: Int32, peer: String, serial: UInt64) {
        guard let bufferevent = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        self.loop = loop
        self.serial = serial
        self.bufferevent = bufferevent
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
        // Silence in either direction for this long ends the connection.
        var idle = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, &idle, &idle)
        bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
    }

    /// During shutdown: an idle connection closes now; one with a request arriving or an answer
    /// being written finishes it first (keep-alive is off while stopping). True if it is busy.
    func finishOrClose() -> Bool {
        if isStream {
            close()
            return false
        }
        let writing = evbuffer_get_length(bufferevent_get_output(bufferevent)) > 0 || outgoing != nil
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
        bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        bufferevent_free(bufferevent)
        loop.closed(self)
    }

    /// Whether the client has sent bytes that this loop has not read yet.
    private var hasUnreadBytes: Bool {
        var byte: UInt8 = 0
        let socket = bufferevent_getfd(bufferevent)
        return socket >= 0 && recv(socket, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0
    }

    // MARK: Callbacks

    private func readable() {
        let source = bufferevent_get_input(bufferevent)
        let length = evbuffer_get_length(source)
        guard length > 0 else { return }
        // A stream's client has nothing more to ask: what it sends is dropped.
        guard !isStream else {
            evbuffer_drain(source, length)
            return
        }
        let start = input.count
        input.append(contentsOf: repeatElement(0, count: length))
        let copied = input.withUnsafeMutableBytes { evbuffer_remove(source, $0.baseAddress! + start, length) }
        if copied < length { input.removeLast(length - max(Int(copied), 0)) }
        // Bytes held back behind an answer still being made or sent (pipelining, a streamed
        // download, a client that does not read) count against the limit: past it, reading
        // stops until the answer is out (`written`, `deliver`).
        let outputPending = evbuffer_get_length(bufferevent_get_output(bufferevent)) >= 1 << 20
        if input.count > maxBufferedBytes && (isAwaitingReply || closesAfterWrite || outgoing != nil || outputPending) {
            bufferevent_disable(bufferevent, Int16(EV_READ))
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
            guard outgoing == nil, !isClosed, evbuffer_get_length(bufferevent_get_output(bufferevent)) == 0 else { return }
        }
        if closesAfterWrite {
            close()
            return
        }
        if readingHeldBack && !isAwaitingReply {
            readingHeldBack = false
            bufferevent_enable(bufferevent, Int16(EV_READ))
        }
        if !input.isEmpty {
            // Requests held back while answers piled up (see `process`) go on now.
            process()
        }
    }

    private func event(_ events: Int16) {
        let pending = evbuffer_get_length(bufferevent_get_output(bufferevent))
        if events & Int16(BEV_EVENT_EOF) != 0 && events & Int16(BEV_EVENT_ERROR) == 0 && (pending > 0 || outgoing != nil) {
            // The client stopped sending but still reads: finish the answers, then close.
            closesAfterWrite = true
            bufferevent_disable(bufferevent, Int16(EV_READ))
            return
        }
        close()
    }

    private func requestTimedOut() {
        deadlineArmed = false
        input = []
        answer(loop.errorPage(HTTPError(
            Status(code: 408, reason: "Request Timeout"),
            "The request did not arrive in \(loop.configuration.timeoutSeconds) seconds.")),
            method: .get, target: "-", keepAlive: false, started: Clock.now)
    }

    // MARK: Requests

    /// Answers every whole request in the buffer, in order (pipelining), and no more.
    private func process() {
        while !closesAfterWrite && !isClosed && !isAwaitingReply && outgoing == nil {
            // A client that pipelines without reading its answers waits until they are written.
            guard evbuffer_get_length(bufferevent_get_output(bufferevent)) < 1 << 20 else { return }
            guard !input.isEmpty else {
                disarmDeadline()
                break
            }
            let started = Clock.now
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
                input.removeFirst(consumed)
                request.peer = peer
                let echo = keepAlive && request.headers["Connection"]?.lowercased() == "keep-alive"
                if loop.mayWait(request) {
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
                answer(loop.errorPage(error), method: .get, target: "-", keepAlive: keepAlive && !loop.isStopping, started: started)
            case .refused(let error):
                refuse(error, started: started)
                return
            }
        }
    }

    // MARK: Event streams

    /// Answers with the stream's head and what the client missed, then keeps the connection
    /// for the hub's events. A client that says `Last-Event-ID` is sent every event after it
    /// (or `reset` when they are no longer kept); a new one starts at the newest event (`ready`).
    private func startStream(_ response: Response, request: Request, events: EventHub, started: Clock.Instant) {
        isStream = true
        streamStartedAt = Int64(Glibc.time(nil))
        disarmDeadline()
        input = []
        loop.log.metrics.eventClients.wrappingAdd(1, ordering: .relaxed)
        // Idle is normal for a stream: only a client that stops taking what is written is cut off.
        var idle = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, nil, &idle)
        // A small kernel send buffer: what a client does not take backs up into libevent's
        // buffer soon, where the write timeout sees it, instead of megabytes of kernel memory
        // hiding it. Events are small; a healthy client takes them as they come.
        var sendBuffer = Self.streamSendBufferBytes
        setsockopt(bufferevent_getfd(bufferevent), SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        var body = Array("retry: 2000\n\n".utf8)
        let newest = events.lastID
        if let text = request.headers["Last-Event-ID"], let after = Int64(text.split(separator: " ").first ?? ""), after <= newest {
            if let missed = events.events(after: after) {
                for event in missed { body += event.bytes }
                lastEventID = missed.last?.id ?? after
            } else {
                body += ServerEvent(id: newest, name: "reset", data: "{}").bytes
                lastEventID = newest
            }
        } else {
            body += ServerEvent(id: newest, name: "ready", data: "{}").bytes
            lastEventID = newest
        }
        write(response.streamHead(date: loop.date) + body)
        loop.addStream(self)
        loop.log.record(peer: peer, method: request.method.name, target: request.target, status: 200, bytes: 0, started: started)
    }

    /// Writes `bytes` (the events after `lastEventID`, or nil when they are no longer kept) and
    /// moves the stream on to `upTo`.
    func push(_ bytes: [UInt8]?, upTo newest: Int64) {
        guard isStream, !isClosed else { return }
        lastEventID = newest
        write(bytes ?? ServerEvent(id: newest, name: "reset", data: "{}").bytes)
    }

    func pushHeartbeat() {
        guard isStream, !isClosed else { return }
        if Int64(Glibc.time(nil)) - streamStartedAt >= Int64(loop.configuration.maxStreamSeconds) {
            close()
            return
        }
        write(Array(": keep-alive\n\n".utf8))
    }

    /// Straight to the socket when nothing is queued, else behind what is; a client that has
    /// let too much pile up is dropped.
    private func write(_ bytes: [UInt8]) {
        let output = bufferevent_get_output(bufferevent)
        guard evbuffer_get_length(output) < Self.maxUnsentStreamBytes else {
            close()
            return
        }
        var sent = 0
        if evbuffer_get_length(output) == 0 {
            sent = Self.send(bytes, [], to: bufferevent_getfd(bufferevent))
        }
        if sent < bytes.count {
            bytes.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + sent, $0.count - sent) }
        }
    }

    /// The answer to the request that was handed to a worker; then the requests behind it.
    func deliver(_ reply: Answer) {
        guard isAwaitingReply, !isClosed else { return }
        isAwaitingReply = false
        if !closesAfterWrite { bufferevent_enable(bufferevent, Int16(EV_READ)) }
        answer(reply.response, method: reply.method, target: reply.target, keepAlive: reply.keepAlive && !loop.isStopping,
               echoKeepAlive: reply.echoKeepAlive, started: reply.started)
        if loop.isStopping && input.isEmpty && !closesAfterWrite {
            closesAfterWrite = true
        }
        process()
    }

    private func refuse(_ error: HTTPError, started: Clock.Instant) {
        disarmDeadline()
        input = []
        answer(loop.errorPage(error), method: .get, target: "-", keepAlive: false, started: started)
    }

    private func answer(
        _ response: Response, method: HTTP.Method, target: String, keepAlive: Bool, echoKeepAlive: Bool = false,
        started: Clock.Instant
    ) {
        let isHead = method == .head
        let output = bufferevent_get_output(bufferevent)
        let head = response.head(keepAlive: keepAlive, echoKeepAlive: echoKeepAlive, date: loop.date)
        let streamed = !isHead && response.hasBody ? response.stream : nil
        let body = !isHead && response.hasBody && streamed == nil ? response.body : []
        var sent = 0
        // Nothing queued ahead of it: straight to the socket, which takes a whole page at once
        // as a rule, so there is no copy into libevent's buffer and no wait for the next turn
        // of the loop. An answer that closes the connection goes the queued way, to be closed
        // once written (see `written`).
        if keepAlive && evbuffer_get_length(output) == 0 {
            sent = Self.send(head, body, to: bufferevent_getfd(bufferevent))
        }
        if sent < head.count {
            head.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + sent, $0.count - sent) }
        }
        let bodySent = max(sent - head.count, 0)
        if bodySent < body.count {
            Self.queue(body, from: bodySent, on: output)
        }
        if !keepAlive {
            closesAfterWrite = true
            bufferevent_disable(bufferevent, Int16(EV_READ))
        }
        loop.log.record(
            peer: peer, method: method.name, target: target, status: response.status.code,
            bytes: isHead ? 0 : response.bodyLength, started: started)
        if let streamed {
            outgoing = (streamed, streamed.length)
            // A client downloading for longer than the idle time sends nothing meanwhile: only
            // one that stops taking the body is cut off.
            var idle = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
            bufferevent_set_timeouts(bufferevent, nil, &idle)
            pump()
        }
    }

    /// Queues the next piece of a streamed body once libevent has written the last (it calls
    /// `written` when its buffer is empty); the kernel's socket buffer keeps the line busy
    /// meanwhile. The pieces are made on this loop: each is one short read of the file.
    private func pump() {
        guard let (source, remaining) = outgoing, !isClosed else { return }
        let output = bufferevent_get_output(bufferevent)
        guard evbuffer_get_length(output) < Self.streamPiece else { return }
        guard remaining > 0 else {
            finishOutgoing()
            return
        }
        guard let piece = source.next(atMost: min(Self.streamPiece, remaining)), !piece.isEmpty, piece.count <= remaining else {
            // The body cannot be made as announced: the client sees it cut short, as the
            // Content-Length tells it, rather than wrong bytes.
            outgoing = nil
            close()
            return
        }
        if remaining == piece.count {
            finishOutgoing()
        } else {
            outgoing = (source, remaining - piece.count)
        }
        Self.queue(piece, from: 0, on: output)
    }

    /// The whole streamed body is queued: its source goes, and silence counts both ways again.
    private func finishOutgoing() {
        outgoing = nil
        var idle = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, &idle, &idle)
    }

    /// One `sendmsg` of head and body; how many bytes the socket took (0 if it took none or
    /// failed: the queued bytes then meet the same failure in libevent, which reports it).
    private static func send(_ head: [UInt8], _ body: [UInt8], to socket: Int32) -> Int {
        guard socket >= 0 else { return 0 }
        return head.withUnsafeBytes { head in
            body.withUnsafeBytes { body in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { parts in
                    parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count)
                    parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
                    var message = msghdr()
                    message.msg_iov = parts.baseAddress
                    message.msg_iovlen = body.isEmpty ? 1 : 2
                    while true {
                        // MSG_NOSIGNAL: a client that has gone is an error here, not SIGPIPE.
                        let written = sendmsg(socket, &message, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                        if written < 0 && errno == EINTR { continue }
                        return max(written, 0)
                    }
                }
            }
        }
    }

    /// Queues the unsent part of a body. A large rest is queued by reference: libevent writes
    /// from the body's own storage, so a slow reader of a big page holds no copy of it.
    private static func queue(_ body: [UInt8], from start: Int, on output: OpaquePointer?) {
        let rest = body.count - start
        guard rest >= Self.referenceThreshold else {
            body.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + start, rest) }
            return
        }
        // The holder keeps the array's storage alive and never writes to it, so the address
        // taken here stays valid until libevent has written the bytes and calls back.
        let holder = Unmanaged.passRetained(BodyHolder(body))
        let address = body.withUnsafeBytes { $0.baseAddress! + start }
        let added = evbuffer_add_reference(output, address, rest, { _, _, holder in
            guard let holder else { return }
            Unmanaged<BodyHolder>.fromOpaque(holder).release()
        }, holder.toOpaque())
        if added != 0 {
            holder.release()
            body.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + start, rest) }
        }
    }

    /// Below this, copying the rest of a body is cheaper than tracking a reference to it.
    static let referenceThreshold = 16 * 1_024

    private func armDeadline() {
        guard !deadlineArmed, let requestDeadline else { return }
        deadlineArmed = true
        var wait = timeval(tv_sec: loop.configuration.timeoutSeconds, tv_usec: 0)
        event_add(requestDeadline, &wait)
    }

    private func disarmDeadline() {
        guard deadlineArmed, let requestDeadline else { return }
        deadlineArmed = false
        event_del(requestDeadline)
    }
}

/// Keeps a body's bytes alive while libevent still has to write them.
private final class BodyHolder {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}
