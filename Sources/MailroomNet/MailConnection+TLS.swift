private import CLibevent

/// STARTTLS, and closing once a reply has left through a TLS filter.
extension MailConnection {
    /// Closes once the last reply has left. A TLS filter's write callback comes when its bytes
    /// are encrypted into the socket's own bufferevent, not when they are sent: freeing the two
    /// then would drop the reply (the 221 to QUIT, a 421), so the close waits for that
    /// bufferevent's output to drain too.
    func closeOnceSent() {
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

    func closeSoon() {
        guard let closer, !isClosed else { return }
        event_active(closer, Int32(EV_TIMEOUT), 0)
    }

    /// The STARTTLS reply is written: whatever else the client sent in plain text is dropped,
    /// and a TLS filter takes over the socket.
    func beginTLS() {
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
