private import CLibevent

/// The text, and the caller's word before its end.
extension RelayConnection {
    func sendText() {
        guard let bufferevent else { return }
        phase = .writingText
        // A large text on a slow link takes long to write, and the relay says nothing meanwhile;
        // the write timeout still catches a relay that stops taking it.
        setTimeouts(reading: false)
        let writer = SocketWriter(bufferevent)
        writer.queue(text)
        // An empty message has nothing to write, so no write callback would come.
        if writer.queued == 0 { textWritten() }
    }

    /// The text has left libevent's buffer: the caller is asked whether to end it. A TLS
    /// filter's buffer empties into the socket's own bufferevent, so the question waits until
    /// that one is empty too, as the socket has then taken the text.
    func textWritten() {
        guard phase == .writingText, let bufferevent else { return }
        if let underlying = bufferevent_get_underlying(bufferevent),
           evbuffer_get_length(bufferevent_get_output(underlying)) > 0 {
            watchDrain(of: underlying)
            return
        }
        removeDrainWatch()
        askBeforeEnd()
    }

    private func watchDrain(of underlying: OpaquePointer) {
        guard drainWatch == nil else { return }
        if nudge == nil {
            nudge = event_new(base, -1, 0, { _, _, context in
                guard let context else { return }
                Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue().textWritten()
            }, context)
        }
        guard nudge != nil else {
            fail("Out of memory while sending the text.")
            return
        }
        // This runs inside libevent's write to the socket, where the connection must not act:
        // it goes on at the next turn of the loop.
        drainWatch = evbuffer_add_cb(bufferevent_get_output(underlying), { buffer, _, context in
            guard let buffer, let context, evbuffer_get_length(buffer) == 0 else { return }
            let connection = Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue()
            if let nudge = connection.nudge { event_active(nudge, Int32(EV_TIMEOUT), 0) }
        }, context)
        if drainWatch == nil { fail("Out of memory while sending the text.") }
    }

    func removeDrainWatch() {
        guard let drainWatch else { return }
        self.drainWatch = nil
        if let bufferevent, let underlying = bufferevent_get_underlying(bufferevent) {
            evbuffer_remove_cb_entry(bufferevent_get_output(underlying), drainWatch)
        }
    }

    private func askBeforeEnd() {
        phase = .deciding
        setTimeouts(reading: false)
        decisionDeadline = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<RelayConnection>.fromOpaque(context).takeUnretainedValue().decisionTimedOut()
        }, context)
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        if let decisionDeadline { event_add(decisionDeadline, &wait) }
        let (client, serial) = (client, serial)
        transaction.beforeEnd { proceed in client.decide(serial, proceed) }
    }

    /// The caller's word (a second one is ignored): the end of the data, or giving up.
    func decided(_ proceed: Bool) {
        guard phase == .deciding else { return }
        clearDeadline()
        if let held {
            report(held)
            close()
            return
        }
        let action = conversation.decided(proceed)
        guard proceed else {
            if case .finish(let outcome) = action { report(outcome) }
            close()
            return
        }
        phase = .talking
        setTimeouts(reading: true)
        perform(action)
    }

    private func decisionTimedOut() {
        guard phase == .deciding else { return }
        clearDeadline()
        report(held ?? Array(repeating: .deferred("abandoned: no word to end the data came within \(duration)"), count: recipientCount))
        close()
    }

    /// Keeps what the relay's refusal or a failure came to until the caller has decided, and
    /// closes the socket meanwhile.
    func hold(_ outcome: [RelayReply]) {
        if held == nil { held = outcome }
        dropBufferevent()
    }

    func clearDeadline() {
        guard let decisionDeadline else { return }
        self.decisionDeadline = nil
        event_del(decisionDeadline)
        event_free(decisionDeadline)
    }
}
