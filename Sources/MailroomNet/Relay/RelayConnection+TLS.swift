import Glibc
private import CLibevent

/// STARTTLS, and what went wrong in words.
extension RelayConnection {
    /// The relay said 220 to STARTTLS: a TLS filter takes over the socket.
    func beginTLS() {
        guard let plain = bufferevent else { return }
        // What came after the 220 came in plain text, where anyone on the way could have put
        // it (the CVE-2011-0411 class, from the client's side): such a relay is not trusted.
        guard evbuffer_get_length(bufferevent_get_input(plain)) == 0 else {
            fail("The relay sent more after agreeing to STARTTLS.")
            return
        }
        guard case .success(let tls)? = client.tls, let ssl = tls.makeSession(host: client.configuration.host) else {
            fail("TLS: cannot start a session for \(client.configuration.host).")
            return
        }
        bufferevent_setcb(plain, nil, nil, nil, nil)
        guard let filtered = bufferevent_openssl_filter_new(
            base, plain, ssl, bufferevent_ssl_state(rawValue: UInt32(mailroom_bev_ssl_connecting)),
            Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        else {
            SSL_free(ssl)
            fail("TLS: cannot start the handshake with \(peer).")
            return
        }
        // From here the filter owns the socket's bufferevent and the session.
        bufferevent = filtered
        phase = .handshaking
        // A relay that closes without TLS's own goodbye has still closed: an end, not an error.
        bufferevent_openssl_set_allow_dirty_shutdown(filtered, 1)
        listen(on: filtered)
        bufferevent_enable(filtered, Int16(EV_READ | EV_WRITE))
    }

    /// A sentence for an event that ends the connection.
    func describe(_ events: Int16) -> String {
        let code = errno
        let awaited = conversation.awaited
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 {
            if phase == .connecting { return "No connection to \(peer) within \(duration)." }
            if events & Int16(BEV_EVENT_WRITING) != 0 {
                return "The relay at \(peer) took nothing for \(duration) (while waiting for \(awaited))."
            }
            return "The relay at \(peer) did not answer within \(duration) (while waiting for \(awaited))."
        }
        let ssl = bufferevent.flatMap { bufferevent_openssl_get_ssl($0) }
        if phase == .handshaking, let problem = RelayTLSContext.certificateProblem(ssl) {
            return "The relay's certificate did not verify: \(problem)."
        }
        let tlsError = bufferevent.map { bufferevent_get_openssl_error($0) } ?? 0
        if tlsError != 0 {
            return "TLS with \(peer) failed: \(RelayTLSContext.describe(tlsError)) (while waiting for \(awaited))."
        }
        if events & Int16(BEV_EVENT_EOF) != 0 {
            return "The relay at \(peer) closed the connection (while waiting for \(awaited))."
        }
        let reason = code != 0 ? String(cString: strerror(code)) : "unknown error"
        if phase == .connecting { return "The connection to \(peer) failed: \(reason)." }
        return "The connection to \(peer) broke: \(reason) (while waiting for \(awaited))."
    }
}
