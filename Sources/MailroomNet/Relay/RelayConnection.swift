import Glibc
private import CLibevent

/// One attempt to hand a message to the relay, on the client's loop: a bufferevent (after
/// STARTTLS, a TLS filter over it) that moves bytes between the relay and a
/// `RelayConversation`, keeps time, and reports the outcome once.
final class RelayConnection {
    enum Phase: Equatable {
        case connecting, talking, handshaking
        /// The text is being written; the caller is asked once it is all out.
        case writingText
        /// The caller is recording that the message goes; the connection waits for its word.
        case deciding
        /// QUIT is said; any reply, or the end of the connection, closes.
        case quitting
        case closed
    }

    /// Kept alive by the client's table of attempts until `close`.
    let client: RelayClient
    let serial: UInt64
    var conversation: RelayConversation
    private var replies = RelayReplyReader()
    let text: [UInt8]
    let recipientCount: Int
    let beforeEnd: @Sendable (@escaping @Sendable (Bool) -> Void) -> Void
    private let completion: @Sendable ([RelayReply]) -> Void
    var phase = Phase.connecting
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

    init(
        client: RelayClient, serial: UInt64, message: RelayMessage,
        beforeEnd: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void,
        completion: @escaping @Sendable ([RelayReply]) -> Void
    ) {
        self.client = client
        self.serial = serial
        text = RelayText.prepared(message.bytes)
        recipientCount = message.recipients.count
        conversation = RelayConversation(configuration: client.configuration, message: message, textSize: text.count)
        self.beforeEnd = beforeEnd
        self.completion = completion
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
        replies.receive(bytes.prefix(Int(taken)))
        // While the caller decides, a reply or a failure drops the socket and waits for the word.
        while phase != .closed, self.bufferevent != nil, let next = replies.next() {
            switch next {
            case .failure(let error):
                fail(error.reason)
                return
            case .success(let reply):
                guard phase != .quitting else {
                    close()
                    return
                }
                let action = conversation.receive(reply)
                // One command at a time, so one reply at a time: anything more is a relay out
                // of step, whose next reply would be taken for the answer to the next command.
                // After a 220 to STARTTLS it would be plain text passed off as coming over TLS.
                if replies.buffered > 0, action.awaitsReply {
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
        case .quitting, .closed:
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
            quit()
        }
    }

    /// Trouble: every recipient not yet settled is deferred with `reason`, and the connection
    /// closes.
    func fail(_ reason: String) {
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
    private func quit() {
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
        completion(outcome)
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
