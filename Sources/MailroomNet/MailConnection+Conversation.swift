import SMTP
private import CLibevent

/// The conversation: what the session says is sent, a finished message is stored, and the
/// last reply closes.
extension MailConnection {
    /// Does what the session says until it needs more bytes or waits on something.
    func converse() {
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
    func send(_ reply: Reply) {
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
    func flush(queued: Bool = false) {
        guard !unsent.isEmpty, !isClosed else { return }
        defer { unsent.removeAll(keepingCapacity: true) }
        let writer = writer
        let sent = !queued && bufferevent_get_underlying(bufferevent) == nil ? writer.sendNow(unsent) : 0
        if sent < unsent.count {
            // The write event is watched only while there is something to write.
            bufferevent_enable(bufferevent, Int16(EV_WRITE))
            writer.queue(unsent, from: sent)
        }
    }

    /// Says the last reply and closes. On a plain socket that takes the reply whole, the close
    /// is at once (`closingNow`); otherwise once the reply has been written.
    func finish(with reply: Reply, closingNow: Bool = true) {
        guard !closesAfterWrite, !isClosed else { return }
        ending = reply.code == 221 ? "QUIT" : "closed by the server with \(reply.code)"
        send(reply)
        closesAfterWrite = true
        pauseReading()
        if closingNow, reader != nil, writer.queued == 0 {
            flush()
            if writer.queued == 0 {
                close()
            }
            return
        }
        flush(queued: true)
    }
}
