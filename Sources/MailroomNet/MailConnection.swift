import Glibc
import SMTP
import Synchronization
private import CLibevent

/// One SMTP client connection on an event loop. The `Session` value decides every reply; this
/// class moves bytes, hands finished messages to a worker thread to be stored, and keeps time.
final class MailConnection {
    private unowned let loop: EventLoop
    private let shared: MailShared
    /// Names this connection for outcomes coming back from worker threads.
    let serial: UInt64
    private let peer: String
    private var session: Session
    /// The plain socket's bufferevent, or after STARTTLS the TLS filter over it. Before
    /// STARTTLS it only writes (what the socket did not take at once) and reports errors:
    /// `reader` reads the plain socket.
    private var bufferevent: OpaquePointer
    private let socket: Int32
    /// Reads the plain socket straight into the loop's buffer: one `recv` per arrival, where a
    /// bufferevent would ask the size first and copy the bytes twice. Gone after STARTTLS.
    private var reader: OpaquePointer?
    private var readingPaused = false
    /// A message is being stored on a worker thread: no reply until it is.
    private var isStoring = false
    /// STARTTLS was answered: the handshake starts once that reply is written.
    private var startsTLS = false
    private var closesAfterWrite = false
    private var isClosed = false
    /// Ends the session when it has lasted too long in all.
    private var sessionDeadline: OpaquePointer?
    /// Over TLS, while the last reply leaves: watches the socket's output, and closes the
    /// connection (on the next turn of the loop) once it is empty.
    private var drainWatch: OpaquePointer?
    private var closer: OpaquePointer?
    /// For the session's log line.
    private let started = Clock.now
    private var storedCount = 0
    private var refusedCount = 0
    private var ending = "the client closed the connection"
    /// The refusing replies sent, by code, for the session's log line.
    private var refusals: [Int: Int] = [:]

    /// Replies of this turn, not yet handed to the socket.
    private var unsent: [UInt8] = []

    /// Unread bytes held while a message is being stored; past this, reading pauses.
    private static let maxHeldBytes = 1 << 20
    /// Replies not yet sent; past this, reading pauses until the client has taken them, so a
    /// client that pipelines commands and reads none of the replies cannot fill the memory.
    private static let maxUnsentBytes = 1 << 20
    /// Messages up to this size are parsed on the loop itself.
    private static let parsedOnLoop = 64 * 1024
    /// Reading is paused until the replies already written have been sent.
    private var waitsForClientToRead = false

    init?(loop: EventLoop, shared: MailShared, socket: Int32, peer: String, serial: UInt64) {
        guard let bufferevent = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        self.loop = loop
        self.shared = shared
        self.serial = serial
        self.peer = peer
        self.bufferevent = bufferevent
        self.socket = socket
        self.session = Session(options: shared.service.configuration.session, peer: peer)
        let context = Unmanaged.passUnretained(self).toOpaque()
        sessionDeadline = event_new(loop.base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().timedOut()
        }, context)
        var total = timeval(tv_sec: shared.service.configuration.sessionSeconds, tv_usec: 0)
        if let sessionDeadline { event_add(sessionDeadline, &total) }
        listen(on: bufferevent)
        reader = event_new(loop.base, socket, Int16(EV_READ | EV_PERSIST), { _, what, context in
            guard let context else { return }
            let connection = Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue()
            if what & Int16(EV_TIMEOUT) != 0 {
                connection.event(Int16(BEV_EVENT_TIMEOUT | BEV_EVENT_READING))
            } else {
                connection.readable()
            }
        }, context)
        guard reader != nil else {
            finish(with: Session.busy(hostname: shared.service.configuration.session.hostname), closingNow: false)
            return
        }
        resumeReading()
        send(session.greeting)
        flush()
    }

    private var idleTimeout: timeval {
        timeval(tv_sec: shared.service.configuration.idleSeconds, tv_usec: 0)
    }

    /// Stops reading until `resumeReading`: bytes the client sends meanwhile wait in the socket.
    private func pauseReading() {
        guard !readingPaused else { return }
        readingPaused = true
        if let reader {
            event_del(reader)
        } else {
            bufferevent_disable(bufferevent, Int16(EV_READ))
        }
    }

    private func resumeReading() {
        readingPaused = false
        if let reader {
            // A persistent event's timeout starts again whenever bytes arrive: the idle time.
            var idle = idleTimeout
            event_add(reader, &idle)
        } else {
            bufferevent_enable(bufferevent, Int16(EV_READ))
        }
    }

    private func listen(on bufferevent: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bufferevent, { _, context in
            guard let context else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().readable()
        }, { _, context in
            guard let context else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().written()
        }, { _, events, context in
            guard let context else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().event(events)
        }, context)
        // A client that takes none of its replies for as long as it may stay silent is idle too.
        var idle = idleTimeout
        bufferevent_set_timeouts(bufferevent, &idle, &idle)
    }

    /// During shutdown: a session storing a message finishes it; any other is told 421 and closed.
    func finishOrClose() -> Bool {
        guard !isStoring else { return true }
        finish(with: Reply(421, "4.3.2", "\(shared.service.configuration.session.hostname) is shutting down."))
        return true
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        // Admitted by the loop before it was made (see `EventLoop.acceptMail`).
        shared.leave(peer)
        loop.log.session(peer: peer, started: started, stored: storedCount, refused: refusedCount, ending: ending, refusals: refusals)
        if let sessionDeadline {
            event_del(sessionDeadline)
            event_free(sessionDeadline)
        }
        sessionDeadline = nil
        stopReader()
        if let drainWatch, let underlying = bufferevent_get_underlying(bufferevent) {
            evbuffer_remove_cb_entry(bufferevent_get_output(underlying), drainWatch)
        }
        drainWatch = nil
        if let closer {
            event_del(closer)
            event_free(closer)
        }
        closer = nil
        bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        bufferevent_free(bufferevent)
        loop.closed(self)
    }

    // MARK: Callbacks

    private func readable() {
        let buffer = loop.readBuffer
        // Pieces of at most 64 KiB: the session takes them as they come, so a large message is
        // never held twice in full.
        while !isClosed && !startsTLS && !closesAfterWrite && !readingPaused {
            if evbuffer_get_length(bufferevent_get_output(bufferevent)) > Self.maxUnsentBytes {
                // `written` reads on once the replies are sent.
                waitsForClientToRead = true
                pauseReading()
                break
            }
            let count: Int
            if reader != nil {
                count = recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    // The client went away (or the connection broke): nobody is left to answer.
                    close()
                    return
                }
            } else {
                count = Int(evbuffer_remove(bufferevent_get_input(bufferevent), buffer.baseAddress, buffer.count))
            }
            guard count > 0 else { break }
            session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            converse()
            if isStoring && session.buffered > Self.maxHeldBytes {
                pauseReading()
                break
            }
            // A short read emptied the socket: asking again would only say so.
            if reader != nil && count < buffer.count { break }
        }
    }

    private func written() {
        if closesAfterWrite {
            closeOnceSent()
        } else if startsTLS {
            beginTLS()
        } else if waitsForClientToRead {
            waitsForClientToRead = false
            resumeReading()
            readable()
        }
    }

    private func event(_ events: Int16) {
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 && events & Int16(BEV_EVENT_WRITING) != 0 {
            // The client took no reply for the idle time: it would not take a 421 either.
            close()
            return
        }
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 && !isStoring {
            finish(with: Session.timedOut)
            return
        }
        if events & Int16(BEV_EVENT_CONNECTED) != 0 { return }
        close()
    }

    private func timedOut() {
        guard !isStoring else { return }
        // A client that does not take the last reply does not keep the connection.
        if closesAfterWrite {
            close()
            return
        }
        finish(with: Session.timedOut)
    }

    /// Closes once the last reply has left. A TLS filter's write callback comes when its bytes
    /// are encrypted into the socket's own bufferevent, not when they are sent: freeing the two
    /// then would drop the reply (the 221 to QUIT, a 421), so the close waits for that
    /// bufferevent's output to drain too.
    private func closeOnceSent() {
        guard let underlying = bufferevent_get_underlying(bufferevent),
              evbuffer_get_length(bufferevent_get_output(underlying)) > 0
        else {
            close()
            return
        }
        guard drainWatch == nil else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let closer = event_new(loop.base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().close()
        }, context) else {
            close()
            return
        }
        self.closer = closer
        // This runs inside the socket's write callback, so it must not free the bufferevent
        // there: it makes the closer event run on the next turn of the loop instead.
        drainWatch = evbuffer_add_cb(bufferevent_get_output(underlying), { buffer, _, context in
            guard let buffer, let context, evbuffer_get_length(buffer) == 0 else { return }
            Unmanaged<MailConnection>.fromOpaque(context).takeUnretainedValue().closeSoon()
        }, context)
        if drainWatch == nil { close() }
    }

    private func closeSoon() {
        guard let closer, !isClosed else { return }
        event_active(closer, Int32(EV_TIMEOUT), 0)
    }

    // MARK: The conversation

    /// Does what the session says until it needs more bytes or waits on something.
    private func converse() {
        defer { flush() }
        while !isClosed && !isStoring && !startsTLS && !closesAfterWrite {
            switch session.next() {
            case .needMore:
                return
            case .reply(let reply):
                send(reply)
            case .close(let reply):
                finish(with: reply)
            case .startTLS(let reply):
                guard shared.tls != nil else {
                    finish(with: Reply(454, "4.7.0", "TLS is not available."))
                    return
                }
                send(reply)
                flush(queued: true)
                startsTLS = true
                pauseReading()
            case .deliver(let message):
                isStoring = true
                let (deliver, replies, serial, peer) = (shared.service.deliver, loop.replies, serial, peer)
                let done: @Sendable (DeliveryOutcome) -> Void = { replies.post(.stored(serial: serial, outcome: $0)) }
                // A small message is parsed here, which takes less time than handing it to
                // another thread; a large one would hold up the loop's other connections.
                if message.text.count <= Self.parsedOnLoop {
                    deliver(message, peer, done)
                } else {
                    Workers.shared.submit { deliver(message, peer, done) }
                }
            }
        }
    }

    /// The outcome of storing the message handed out last; then the commands behind it.
    func stored(_ outcome: DeliveryOutcome) {
        guard isStoring, !isClosed else { return }
        isStoring = false
        switch outcome {
        case .stored(let name):
            storedCount += 1
            shared.metrics.smtpMessagesAccepted.wrappingAdd(1, ordering: .relaxed)
            send(session.delivered(as: name))
        case .refused(let reply):
            refusedCount += 1
            shared.metrics.smtpMessagesRefused.wrappingAdd(1, ordering: .relaxed)
            _ = session.notDelivered()
            send(reply)
        }
        if loop.isStopping {
            finish(with: Reply(421, "4.3.2", "\(shared.service.configuration.session.hostname) is shutting down."))
            return
        }
        // Bytes read while storing may already hold more commands.
        converse()
        if readingPaused && !isClosed && !startsTLS && !closesAfterWrite {
            resumeReading()
            readable()
        }
    }

    /// Adds a reply to those going out at the end of this turn (see `flush`).
    private func send(_ reply: Reply) {
        if reply.isRefusal { refusals[reply.code, default: 0] += 1 }
        // 552: a message refused for its size, announced (MAIL SIZE=) or read.
        if reply.code == 552 {
            refusedCount += 1
            shared.metrics.smtpMessagesRefused.wrappingAdd(1, ordering: .relaxed)
        }
        unsent += reply.bytes
    }

    /// Sends the replies of this turn, all pipelined replies in one write. On a plain socket with
    /// nothing queued ahead they go straight to the socket, which takes them whole as a rule:
    /// no copy into libevent's buffer and no extra turn of the loop. `queued` sends them through
    /// the buffer, so the write callback tells when they are out (before a close or STARTTLS).
    private func flush(queued: Bool = false) {
        guard !unsent.isEmpty, !isClosed else { return }
        defer { unsent.removeAll(keepingCapacity: true) }
        var sent = 0
        if !queued, bufferevent_get_underlying(bufferevent) == nil,
           evbuffer_get_length(bufferevent_get_output(bufferevent)) == 0 {
            let socket = bufferevent_getfd(bufferevent)
            let count = unsent.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            sent = max(count, 0)
        }
        if sent < unsent.count {
            // The write event is watched only while there is something to write.
            bufferevent_enable(bufferevent, Int16(EV_WRITE))
            unsent.withUnsafeBytes { _ = bufferevent_write(bufferevent, $0.baseAddress! + sent, $0.count - sent) }
        }
    }

    /// Says the last reply and closes. On a plain socket that takes the reply whole, the close
    /// is at once (`closingNow`); otherwise once the reply has been written.
    private func finish(with reply: Reply, closingNow: Bool = true) {
        guard !closesAfterWrite, !isClosed else { return }
        ending = reply.code == 221 ? "QUIT" : "closed by the server with \(reply.code)"
        send(reply)
        closesAfterWrite = true
        pauseReading()
        if closingNow, reader != nil, evbuffer_get_length(bufferevent_get_output(bufferevent)) == 0 {
            flush()
            if evbuffer_get_length(bufferevent_get_output(bufferevent)) == 0 {
                close()
            }
            return
        }
        flush(queued: true)
    }

    private func stopReader() {
        guard let reader else { return }
        event_del(reader)
        event_free(reader)
        self.reader = nil
    }

    /// The STARTTLS reply is written: whatever else the client sent in plain text is dropped,
    /// and a TLS filter takes over the socket.
    private func beginTLS() {
        startsTLS = false
        stopReader()
        let plain = bufferevent
        guard let tls = shared.tls, let ssl = tls.makeSession() else {
            close()
            return
        }
        bufferevent_setcb(plain, nil, nil, nil, nil)
        guard let filtered = bufferevent_openssl_filter_new(
            loop.base, plain, ssl, bufferevent_ssl_state(rawValue: UInt32(mailroom_bev_ssl_accepting)),
            Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        else {
            close()
            return
        }
        bufferevent = filtered
        // The filter moves encrypted replies into the socket's bufferevent only while that holds
        // less than this, so the replies waiting are counted in the filter's own output.
        bufferevent_setwatermark(plain, Int16(EV_WRITE), 0, Self.maxUnsentBytes)
        listen(on: filtered)
        readingPaused = false
        bufferevent_enable(filtered, Int16(EV_READ | EV_WRITE))
    }
}
