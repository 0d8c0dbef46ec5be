import Glibc
import SMTP
import Synchronization
private import CLibevent

/// One SMTP client connection on an event loop. The `Session` value decides every reply; this
/// class moves bytes, hands finished messages to a worker thread to be stored, and keeps time.
final class MailConnection {
    unowned let loop: EventLoop
    let shared: MailShared
    /// Names this connection for outcomes coming back from worker threads.
    let serial: UInt64
    let peer: String
    var session: Session
    /// The plain socket's bufferevent, or after STARTTLS the TLS filter over it. Before
    /// STARTTLS it only writes (what the socket did not take at once) and reports errors:
    /// `reader` reads the plain socket.
    var bufferevent: OpaquePointer
    private let socket: Socket
    /// Reads the plain socket straight into the loop's buffer: one `recv` per arrival, where a
    /// bufferevent would ask the size first and copy the bytes twice. Gone after STARTTLS.
    var reader: OpaquePointer?
    var readingPaused = false
    /// A message is being stored on a worker thread: no reply until it is.
    var isStoring = false
    /// STARTTLS was answered: the handshake starts once that reply is written.
    var startsTLS = false
    var closesAfterWrite = false
    var isClosed = false
    /// Ends the session when it has lasted too long in all.
    var sessionDeadline: OpaquePointer?
    /// Over TLS, while the last reply leaves: watches the socket's output, and closes the
    /// connection (on the next turn of the loop) once it is empty.
    var drainWatch: OpaquePointer?
    var closer: OpaquePointer?
    /// For the session's log line.
    let started = Clock.now
    var storedCount = 0
    var refusedCount = 0
    var ending = "the client closed the connection"
    /// The refusing replies sent, by code, for the session's log line.
    var refusals: [Int: Int] = [:]

    /// Replies of this turn, not yet handed to the socket.
    var unsent: [UInt8] = []

    /// Unread bytes held while a message is being stored; past this, reading pauses.
    private static let maxHeldBytes = 1 << 20
    /// Replies not yet sent; past this, reading pauses until the client has taken them, so a
    /// client that pipelines commands and reads none of the replies cannot fill the memory.
    static let maxUnsentBytes = 1 << 20
    /// Messages up to this size are parsed on the loop itself.
    static let parsedOnLoop = 64 * 1024
    /// Reading is paused until the replies already written have been sent.
    var waitsForClientToRead = false

    /// Where the replies are written: the socket's bufferevent, or the TLS filter over it.
    var writer: SocketWriter { SocketWriter(bufferevent) }

    init?(loop: EventLoop, shared: MailShared, socket: Int32, peer: String, serial: UInt64) {
        guard let bufferevent = bufferevent_socket_new(loop.base, socket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        self.loop = loop
        self.shared = shared
        self.serial = serial
        self.peer = peer
        self.bufferevent = bufferevent
        self.socket = Socket(socket)
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
    func pauseReading() {
        guard !readingPaused else { return }
        readingPaused = true
        if let reader {
            event_del(reader)
        } else {
            bufferevent_disable(bufferevent, Int16(EV_READ))
        }
    }

    func resumeReading() {
        readingPaused = false
        if let reader {
            // A persistent event's timeout starts again whenever bytes arrive: the idle time.
            var idle = idleTimeout
            event_add(reader, &idle)
        } else {
            bufferevent_enable(bufferevent, Int16(EV_READ))
        }
    }

    func listen(on bufferevent: OpaquePointer) {
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

    func readable() {
        let buffer = loop.readBuffer
        // Pieces of at most 64 KiB: the session takes them as they come, so a large message is
        // never held twice in full.
        while !isClosed && !startsTLS && !closesAfterWrite && !readingPaused {
            if writer.queued > Self.maxUnsentBytes {
                // `written` reads on once the replies are sent.
                waitsForClientToRead = true
                pauseReading()
                break
            }
            let count: Int
            if reader != nil {
                let received: Int?
                do {
                    received = try socket.receive(into: buffer)
                } catch {
                    received = 0
                }
                guard let received else { break }
                guard received > 0 else {
                    // The client went away (or the connection broke): nobody is left to answer.
                    close()
                    return
                }
                count = received
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

    func written() {
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

    func event(_ events: Int16) {
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

    func timedOut() {
        guard !isStoring else { return }
        // A client that does not take the last reply does not keep the connection.
        if closesAfterWrite {
            close()
            return
        }
        finish(with: Session.timedOut)
    }

    func stopReader() {
        guard let reader else { return }
        event_del(reader)
        event_free(reader)
        self.reader = nil
    }
}
