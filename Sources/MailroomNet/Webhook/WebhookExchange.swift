import Glibc
private import CLibevent

/// One delivery on the client's loop: an `evhttp_connection` (over a TLS bufferevent for
/// https) with one POST on it, a timer, and the outcome, reported once.
///
/// The status decides the outcome. The body of the answer is read only so that the connection
/// ends cleanly, and counted as it goes: past `maxBodyBytes` the connection is simply closed.
/// The connection is freed on the timer's turn, never inside one of libevent's callbacks,
/// which may still use it when they return.
final class WebhookExchange {
    /// libevent's reasons for a request that failed (`evhttp_request_error`).
    enum Failure {
        case timedOut, ended, notHTTP, headersTooLong, cancelled, broken
    }

    /// What is read of an answer's body before the connection is closed instead.
    static let maxBodyBytes = 64 * 1_024
    /// A status line and headers longer than this are no answer.
    static let maxHeaderBytes = 64 * 1_024

    /// Kept alive by the client's table of exchanges until `tearDown`.
    let client: WebhookClient
    let serial: UInt64
    let delivery: WebhookDelivery
    private let completion: @Sendable (WebhookResult) -> Void
    /// The `evhttp_connection`, which owns its bufferevent (and that, the SSL); nil once freed.
    var connection: OpaquePointer?
    /// The `evhttp_request` while libevent may still call back for it; libevent frees it.
    private var request: OpaquePointer?
    /// The TLS session, borrowed from the connection's bufferevent, for what went wrong.
    var ssl: OpaquePointer?
    /// The deadline for the whole delivery, and the turn on which the exchange is torn down.
    private var timer: OpaquePointer?
    /// The answer's status, once its headers are in.
    private var status: Int?
    private var bodyBytes = 0
    /// What libevent said went wrong, when it did.
    var failure: Failure?
    /// errno as libevent left it for `failure`; it may be stale, so only some values are told.
    var failureErrno: Int32 = 0
    private var reported = false
    let started = ContinuousClock.now

    var seconds: Int { client.timeoutSeconds }
    var peer: String { delivery.target.authority }
    private var base: OpaquePointer { client.loop.base }
    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    init(client: WebhookClient, serial: UInt64, delivery: WebhookDelivery, completion: @escaping @Sendable (WebhookResult) -> Void) {
        self.client = client
        self.serial = serial
        self.delivery = delivery
        self.completion = completion
    }

    /// Starts connecting and sends the request once connected. libevent may already have
    /// called back (a refusal on the spot) by the time this returns.
    func begin() {
        guard let timer = event_new(base, -1, 0, { _, _, context in
            guard let context else { return }
            Unmanaged<WebhookExchange>.fromOpaque(context).takeUnretainedValue().timerFired()
        }, context) else {
            report(.retry("Cannot make a timer for the delivery to \(peer)."))
            client.finished(self)
            return
        }
        self.timer = timer
        var deadline = timeval(tv_sec: 2 * seconds, tv_usec: 0)
        event_add(timer, &deadline)

        guard let connection = makeConnection() else { return }
        self.connection = connection
        evhttp_connection_set_timeout(connection, Int32(clamping: seconds))
        evhttp_connection_set_max_headers_size(connection, Self.maxHeaderBytes)

        guard let request = evhttp_request_new({ request, context in
            guard let context else { return }
            Unmanaged<WebhookExchange>.fromOpaque(context).takeUnretainedValue().ended(request)
        }, context) else {
            finish(.retry("Cannot make a request for \(peer)."))
            return
        }
        evhttp_request_set_header_cb(request) { request, context in
            guard let request, let context else { return 0 }
            Unmanaged<WebhookExchange>.fromOpaque(context).takeUnretainedValue().headersArrived(request)
            return 0
        }
        evhttp_request_set_chunked_cb(request) { request, context in
            guard let request, let context else { return }
            Unmanaged<WebhookExchange>.fromOpaque(context).takeUnretainedValue().bodyArrived(request)
        }
        evhttp_request_set_error_cb(request) { error, context in
            guard let context else { return }
            Unmanaged<WebhookExchange>.fromOpaque(context).takeUnretainedValue().failed(error)
        }
        let headers = evhttp_request_get_output_headers(request)
        for (name, value) in delivery.requestHeaders {
            // `post` checked the caller's headers; the client's own are plain ASCII.
            _ = evhttp_add_header(headers, name, value)
        }
        delivery.body.withUnsafeBytes { bytes in
            _ = evbuffer_add(evhttp_request_get_output_buffer(request), bytes.baseAddress, bytes.count)
        }
        self.request = request
        guard evhttp_make_request(connection, request, EVHTTP_REQ_POST, delivery.target.path) == 0 else {
            // Whether libevent freed the request depends on why it failed (only for want of
            // memory): it is left alone rather than risk freeing it twice.
            self.request = nil
            finish(.retry("Cannot start the request to \(peer)."))
            return
        }
    }

    /// A connection to the target, its bufferevent a TLS one for https; nil once the failure
    /// is reported.
    private func makeConnection() -> OpaquePointer? {
        let target = delivery.target
        var bufferevent: OpaquePointer?
        if target.scheme == "https" {
            let tls: RelayTLSContext
            switch client.tls {
            case .success(let context): tls = context
            case .failure(let error):
                finish(.retry(error.reason))
                return nil
            }
            guard let session = tls.makeSession(host: target.host) else {
                finish(.retry("TLS: cannot start a session for \(target.host)."))
                return nil
            }
            // Connecting state with no socket yet: libevent makes the socket once the name is
            // looked up, and the handshake follows the connect. CLOSE_ON_FREE makes the
            // bufferevent free the session when it goes.
            guard let made = bufferevent_openssl_socket_new(
                base, -1, session, bufferevent_ssl_state(rawValue: UInt32(mailroom_bev_ssl_connecting)),
                Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue))
            else {
                SSL_free(session)
                finish(.retry("TLS: cannot start a connection to \(peer)."))
                return nil
            }
            // Many servers close without TLS's goodbye once the answer is out.
            bufferevent_openssl_set_allow_dirty_shutdown(made, 1)
            bufferevent = made
            ssl = session
        }
        guard client.resolver != nil || WebhookExchange.isAddress(target.host) else {
            if let bufferevent { bufferevent_free(bufferevent) }
            ssl = nil
            finish(.retry("Cannot look up \(target.host): the resolver could not be started."))
            return nil
        }
        guard let connection = evhttp_connection_base_bufferevent_new(
            base, client.resolver, bufferevent, target.host, UInt16(target.port))
        else {
            if let bufferevent { bufferevent_free(bufferevent) }
            ssl = nil
            finish(.retry("Cannot make a connection to \(peer)."))
            return nil
        }
        return connection
    }

    // MARK: libevent's callbacks

    private func headersArrived(_ request: OpaquePointer) {
        let code = Int(evhttp_request_get_response_code(request))
        // A 1xx is not the answer; the real one follows it.
        if code >= 200 { status = code }
    }

    private func bodyArrived(_ request: OpaquePointer) {
        // libevent empties the buffer once this returns.
        bodyBytes += evbuffer_get_length(evhttp_request_get_input_buffer(request))
        if bodyBytes > Self.maxBodyBytes, let status { finish(.answered(status, by: peer)) }
    }

    /// libevent says what went wrong, then (unless the exchange cancelled) calls `ended(nil)`.
    /// It has freed the request already.
    private func failed(_ error: evhttp_request_error) {
        // libevent puts back the socket's error before this call, after its reset overwrote it.
        failureErrno = errno
        request = nil
        switch error {
        case EVREQ_HTTP_TIMEOUT: failure = .timedOut
        case EVREQ_HTTP_EOF: failure = .ended
        case EVREQ_HTTP_INVALID_HEADER: failure = .notHTTP
        case EVREQ_HTTP_DATA_TOO_LONG: failure = .headersTooLong
        case EVREQ_HTTP_REQUEST_CANCEL: failure = .cancelled
        default: failure = .broken
        }
    }

    /// The request is over: answered, or not (`request` nil, or a status of 0 when the
    /// connection could not be made). libevent frees the request once this returns.
    private func ended(_ request: OpaquePointer?) {
        self.request = nil
        if let request {
            let code = Int(evhttp_request_get_response_code(request))
            if code >= 200 { status = code }
        }
        if let status {
            finish(.answered(status, by: peer))
        } else {
            finish(.retry(reasonForNoAnswer()))
        }
    }

    // MARK: Ending

    /// The deadline passed, or `finish` asked for the tear-down.
    private func timerFired() {
        if let status {
            report(.answered(status, by: peer))
        } else {
            report(.retry("No complete answer from \(peer) within \(2 * seconds) s."))
        }
        tearDown()
    }

    /// Reports `result` unless something was reported already, and tears down on the timer's
    /// next turn, out of whatever libevent callback this is.
    private func finish(_ result: WebhookResult) {
        report(result)
        if let timer {
            event_active(timer, Int32(EV_TIMEOUT), 0)
        } else {
            tearDown()
        }
    }

    private func report(_ result: WebhookResult) {
        guard !reported else { return }
        reported = true
        completion(result)
    }

    private func tearDown() {
        // A request still under way is cancelled first: that closes the socket through libevent's
        // reset, so the free below has no descriptor left to shut down (its shutdown after the TLS
        // bufferevent has closed it could hit a descriptor another thread has just opened).
        if let request {
            self.request = nil
            evhttp_cancel_request(request)
        }
        if let connection {
            self.connection = nil
            ssl = nil
            evhttp_connection_free(connection)
        }
        if let timer {
            self.timer = nil
            event_free(timer)
        }
        client.finished(self)
    }
}
