import Glibc
private import CLibevent

/// A connection to the relay, on the client's loop: a bufferevent (after STARTTLS, a TLS
/// filter over it) that moves bytes between the relay and the `RelayConversation` of the
/// message it carries, keeps time, and reports each message's outcome once. Between messages
/// it waits, parked with the client, for the next one, and says QUIT when none comes.
final class RelayConnection {
    enum Phase: Equatable {
        case connecting, talking, handshaking
        /// The text is being written; the caller is asked once it is all out.
        case writingText
        /// The caller is recording that the message goes; the connection waits for its word.
        case deciding
        /// Between messages, parked with the client.
        case idle
        /// QUIT is said; any reply, or the end of the connection, closes.
        case quitting
        case closed
    }

    /// Kept alive by the client's table of connections until `close`.
    let client: RelayClient
    /// The message carried now, or last.
    private(set) var transaction: RelayTransaction
    var conversation: RelayConversation
    private var replies = RelayReplyReader()
    private(set) var text: [UInt8]
    var serial: UInt64 { transaction.serial }
    var recipientCount: Int { transaction.message.recipients.count }
    var phase = Phase.connecting
    /// When the connection was made: it carries no new message after `RelayClient.reuseLimit`.
    let opened = ContinuousClock.now
    /// What the last transaction left for the next, while parked.
    private var session: RelaySession?
    /// The socket's bufferevent, or after STARTTLS the TLS filter that owns it; nil once closed.
    var bufferevent: OpaquePointer?
    /// Addresses not yet tried.
    private var addresses: [[UInt8]] = []
    /// The address connected to, for messages.
    var peer = "the relay"
    /// An outcome reached while the caller decided (the relay refused or went away), reported
    /// once it has.
    var held: [RelayReply]?
    private var reported = false
    var decisionDeadline: OpaquePointer?
    /// Over TLS: watches the socket's own output until the text has left it (see `textWritten`).
    var drainWatch: OpaquePointer?
    var nudge: OpaquePointer?

    var seconds: Int { client.configuration.timeoutSeconds }
    /// "1 second", "60 seconds": the wait, in messages.
    var duration: String { seconds == 1 ? "1 second" : "\(seconds) seconds" }
    var base: OpaquePointer { client.loop.base }
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    init(client: RelayClient, transaction: RelayTransaction) {
        self.client = client
        self.transaction = transaction
        text = RelayText.prepared(transaction.message.bytes)
        conversation = RelayConversation(configuration: client.configuration, message: transaction.message, textSize: text.count)
    }

    /// Whether the connection, parked, can take another message.
    var isReusable: Bool {
        phase == .idle && session != nil && bufferevent != nil && ContinuousClock.now - opened < RelayClient.reuseLimit
    }

    /// Starts `next` on this parked connection.
    func carry(_ next: RelayTransaction) {
        guard phase == .idle, let session else { return }
        transaction = next
        text = RelayText.prepared(next.message.bytes)
        conversation = RelayConversation(
            configuration: client.configuration, message: next.message, textSize: text.count, session: session)
        self.session = nil
        held = nil
        reported = false
        phase = .talking
        setTimeouts(reading: true)
        perform(conversation.begin())
    }

    /// Connects to the first address that takes the connection.
    func connect(to list: [[UInt8]]) {
        addresses = list
        connectNext(after: "The relay host has no address.")
    }

    private func connectNext(after trouble: String) {
        guard !addresses.isEmpty else {
            fail(trouble)
            return
        }
        let address = addresses.removeFirst()
        peer = RelayAddresses.describe(address)
        let family = RelayAddresses.withSocketAddress(address) { pointer, _ in Int32(pointer.pointee.sa_family) }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            connectNext(after: "Cannot open a socket for \(peer): \(String(cString: strerror(errno))).")
            return
        }
        // Commands, and the final dot behind the text, go at once rather than waiting for an ACK.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        // The connect is started here rather than by libevent, so that a refusal on the spot
        // (as on loopback) is told with its own errno.
        do throws(SystemCallError) {
            _ = try Syscall.run(retryingInterrupts: false) {
                RelayAddresses.withSocketAddress(address) { pointer, length in Glibc.connect(fd, pointer, length) }
            }
        } catch where error.code != EINPROGRESS {
            Syscall.close(fd)
            connectNext(after: "The connection to \(peer) failed: \(error.reason).")
            return
        } catch {}
        guard let made = bufferevent_socket_new(base, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            Syscall.close(fd)
            fail("Cannot make a connection to \(peer).")
            return
        }
        bufferevent = made
        phase = .connecting
        listen(on: made)
        bufferevent_enable(made, Int16(EV_READ | EV_WRITE))
        // Without an address libevent takes the socket as connecting, and says CONNECTED (or
        // the error) once it is writable.
        guard bufferevent_socket_connect(made, nil, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            dropBufferevent()
            connectNext(after: "The connection to \(peer) failed: \(reason).")
            return
        }
    }

    func listen(on bufferevent: OpaquePointer) {
        bufferevent_setcb(bufferevent, { _, context in
            guard let context else { return }
            Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue().readable()
        }, { _, context in
            guard let context else { return }
            Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue().written()
        }, { _, events, context in
            guard let context else { return }
            Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue().event(events)
        }, context)
        // A relay that talks without pause is read a piece at a time, and the reader's caps
        // cut it off.
        bufferevent_setwatermark(bufferevent, Int16(EV_READ), 0, 64 * 1_024)
        setTimeouts(reading: true)
    }

    /// Each wait for the relay lasts `seconds`; writing, too. `reading: false` while the caller
    /// decides, when the relay has nothing to say and its silence is no fault.
    func setTimeouts(reading: Bool) {
        guard let bufferevent else { return }
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        for target in [bufferevent, bufferevent_get_underlying(bufferevent)].compactMap({ $0 }) {
            if reading {
                bufferevent_set_timeouts(target, &wait, &wait)
            } else {
                bufferevent_set_timeouts(target, nil, &wait)
            }
        }
    }

    // MARK: Callbacks

    private func readable() {
        guard let bufferevent else { return }
        let input = bufferevent_get_input(bufferevent)
        let count = evbuffer_get_length(input)
        guard count > 0 else { return }
        var bytes = [UInt8](repeating: 0, count: count)
        let taken = bytes.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, count) }
        guard taken > 0 else { return }
        // A parked connection is spoken to only when it carries a message: the relay is
        // saying goodbye (421), or out of step.
        guard phase != .idle else {
            close()
            return
        }
        replies.receive(bytes.prefix(Int(taken)))
        // While the caller decides, a reply or a failure drops the socket and waits for the word.
        while phase != .closed, self.bufferevent != nil, let next = replies.next() {
            switch next {
            case .failure(let error):
                fail(error.reason)
                return
            case .success(let reply):
                // After QUIT anything ends it; parked, so does a reply nobody asked for (the
                // relay's goodbye, come with the last answer).
                guard phase != .quitting, phase != .idle else {
                    close()
                    return
                }
                let action = conversation.receive(reply)
                // One command at a time, so one reply at a time: anything more is a relay out
                // of step, whose next reply would be taken for the answer to the next command.
                // After a 220 to STARTTLS it would be plain text passed off as coming over TLS.
                if replies.buffered > 0, action.awaitsReply, action != .await {
                    fail("The relay sent more than the reply to one command.")
                    return
                }
                perform(action)
            }
        }
    }

    private func written() {
        if phase == .writingText { textWritten() }
    }

    private func event(_ events: Int16) {
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            if phase == .connecting {
                // The greeting comes next.
                phase = .talking
            } else if phase == .handshaking {
                phase = .talking
                perform(conversation.secured())
            }
            return
        }
        let reason = describe(events)
        switch phase {
        case .connecting:
            dropBufferevent()
            connectNext(after: reason)
        case .idle where events & Int16(BEV_EVENT_TIMEOUT) != 0:
            // Nothing more to carry for a while.
            quit()
        case .idle, .quitting, .closed:
            close()
        default:
            fail(reason)
        }
    }

    // MARK: Acting

    func perform(_ action: RelayConversation.Action) {
        switch action {
        case .send(let bytes):
            guard let bufferevent else { return }
            _ = bytes.withUnsafeBytes { bufferevent_write(bufferevent, $0.baseAddress, $0.count) }
        case .await:
            break
        case .startTLS:
            beginTLS()
        case .sendText:
            sendText()
        case .finish(let outcome):
            guard phase != .deciding else {
                hold(outcome)
                return
            }
            report(outcome)
            if let session = conversation.session {
                park(session)
            } else {
                quit()
            }
        }
    }

    /// Waits with the client for the next message, `RelayClient.idleSeconds` at most.
    private func park(_ session: RelaySession) {
        self.session = session
        phase = .idle
        guard let bufferevent, client.park(self) else {
            quit()
            return
        }
        var wait = timeval(tv_sec: RelayClient.idleSeconds, tv_usec: 0)
        bufferevent_set_timeouts(bufferevent, &wait, &wait)
    }

    /// Trouble: every recipient not yet settled is deferred with `reason`, and the connection
    /// closes.
    func fail(_ reason: String) {
        // A parked connection the relay closed meanwhile: the message goes on a new one, as
        // if this had not been tried.
        if conversation.isUnanswered && phase != .deciding {
            reported = true
            let again = transaction
            close()
            client.startAfresh(again)
            return
        }
        let outcome = conversation.failed(reason)
        guard phase != .deciding else {
            hold(outcome)
            return
        }
        report(outcome)
        close()
    }

    /// QUIT, unless inside the data, where it would be text: there the close itself tells the
    /// relay to drop the message.
    func quit() {
        guard let bufferevent, !conversation.isInsideData else {
            close()
            return
        }
        phase = .quitting
        let command = Array("QUIT\r\n".utf8)
        _ = command.withUnsafeBytes { bufferevent_write(bufferevent, $0.baseAddress, $0.count) }
    }

    func report(_ outcome: [RelayReply]) {
        guard !reported else { return }
        reported = true
        client.ended(transaction.serial)
        transaction.completion(outcome)
    }

    /// Lets go of everything; the last thing the connection does.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        clearDeadline()
        dropBufferevent()
        if let nudge {
            event_del(nudge)
            event_free(nudge)
        }
        nudge = nil
        if !reported { report(conversation.failed("The attempt ended without an outcome.")) }
        client.finished(self)
    }

    /// Closes the socket (and any TLS filter over it) but not the attempt.
    func dropBufferevent() {
        removeDrainWatch()
        guard let bufferevent else { return }
        self.bufferevent = nil
        bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        bufferevent_free(bufferevent)
    }
}
