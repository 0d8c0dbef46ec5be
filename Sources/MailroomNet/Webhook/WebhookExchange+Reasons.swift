import Glibc
private import CLibevent

/// Why a delivery got no answer, in a sentence, from what libevent and OpenSSL left behind.
extension WebhookExchange {
    func reasonForNoAnswer() -> String {
        let bufferevent = connection.flatMap { evhttp_connection_get_bufferevent($0) }
        if let bufferevent, case let code = bufferevent_socket_get_dns_error(bufferevent), code != 0 {
            return "Cannot look up \(delivery.target.host): \(String(cString: evutil_gai_strerror(code)))."
        }
        // The verify result outlives the reset of the connection (SSL_clear keeps it).
        if let problem = RelayTLSContext.certificateProblem(ssl) {
            return "The certificate of \(peer) did not verify: \(problem)."
        }
        // libevent keeps OpenSSL's error codes beside bare SSL_get_error values (5 for a
        // socket error): only the former, which name a library in their top bits, say more.
        if let bufferevent, ssl != nil, case let code = bufferevent_get_openssl_error(bufferevent), code >= 1 << 23 {
            return "TLS with \(peer) failed: \(RelayTLSContext.describe(code))."
        }
        switch failure {
        case nil:
            // libevent reports a refused connection and one that timed out alike, and its
            // reset has overwritten errno by then: the time taken tells them apart.
            if started.duration(to: .now) >= .seconds(seconds) {
                return "No connection to \(peer) within \(seconds) s."
            }
            return "Cannot connect to \(peer)."
        case .timedOut?:
            return "The receiver at \(peer) did not answer within \(seconds) s."
        case .ended?:
            // The same report covers a connection that failed and one the receiver closed.
            if Self.connectionErrors.contains(failureErrno) {
                return "The connection to \(peer) failed: \(String(cString: strerror(failureErrno)))."
            }
            return "The connection to \(peer) ended without an answer."
        case .notHTTP?:
            return "The receiver at \(peer) answered with something other than HTTP."
        case .headersTooLong?:
            return "The receiver at \(peer) sent a status line and headers over \(Self.maxHeaderBytes / 1_024) KiB."
        case .cancelled?, .broken?:
            return "The connection to \(peer) failed."
        }
    }

    /// errno values that say how a connection failed; any other may be left over from an
    /// unrelated call.
    private static let connectionErrors: Set<Int32> = [
        ECONNREFUSED, ECONNRESET, ECONNABORTED, EHOSTUNREACH, ENETUNREACH, ENETDOWN, ETIMEDOUT, EPIPE,
    ]

    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
