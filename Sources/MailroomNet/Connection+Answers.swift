import Glibc
import HTTP
private import CLibevent

/// Answers: written in order, a streamed body a piece at a time as the client takes it.
extension Connection {
    /// The answer to the request that was handed to a worker; then the requests behind it.
    func deliver(_ reply: Answer) {
        guard isAwaitingReply, !isClosed else { return }
        isAwaitingReply = false
        if !closesAfterWrite { startReading() }
        answer(reply.response, method: reply.method, target: reply.target, keepAlive: reply.keepAlive && !loop.isStopping,
               echoKeepAlive: reply.echoKeepAlive, started: reply.started)
        if loop.isStopping && input.isEmpty && !closesAfterWrite {
            closesAfterWrite = true
        }
        process()
    }

    func refuse(_ error: HTTPError, started: Clock.Instant) {
        disarmDeadline()
        input = []
        lingersOnClose = true
        answer(loop.errorPage(error), method: .get, target: "-", keepAlive: false, started: started)
    }

    /// `head`: the response's head made already for this second (a repeated answer's), and
    /// `file` the same head and the body in a file.
    func answer(
        _ response: Response, method: HTTP.Method, target: String, keepAlive: Bool, echoKeepAlive: Bool = false,
        head madeHead: [UInt8]? = nil, file: AnswerFile? = nil, started: Clock.Instant
    ) {
        let isHead = method == .head
        let head = madeHead ?? response.head(keepAlive: keepAlive, echoKeepAlive: echoKeepAlive, date: loop.date)
        let streamed = !isHead && response.hasBody ? response.stream : nil
        let body = !isHead && response.hasBody && streamed == nil ? response.body : []
        writer.write(head, body, file: isHead || streamed != nil || madeHead == nil ? nil : file)
        if !keepAlive {
            closesAfterWrite = true
            stopReading()
        }
        loop.log.record(
            peer: peer, method: method.name, target: target, status: response.status.code,
            bytes: isHead ? 0 : response.bodyLength, started: started)
        if let streamed {
            outgoing = (streamed, streamed.length)
            // A client downloading for longer than the idle time sends nothing meanwhile: only
            // one that stops taking the body is cut off.
            timeReads(false)
            pump()
        }
        // A closing answer the socket took whole is done: libevent has nothing to write, so no
        // `written` would come to close it. One that is queued is closed once written.
        if closesAfterWrite && outgoing == nil && writer.queued == 0 { closeAfterLastAnswer() }
    }

    /// Queues the next piece of a streamed body once libevent has written the last (it calls
    /// `written` when its buffer is empty); the kernel's socket buffer keeps the line busy
    /// meanwhile. The pieces are made on this loop: each is one short read of the file.
    func pump() {
        guard let (source, remaining) = outgoing, !isClosed else { return }
        let writer = writer
        guard writer.queued < Self.streamPiece else { return }
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
        writer.queue(piece)
    }

    /// The whole streamed body is queued: its source goes, and silence counts both ways again.
    func finishOutgoing() {
        outgoing = nil
        timeReads(true)
    }

    /// One `sendmsg` of head and body; how many bytes the socket took (0 if it took none or
}
