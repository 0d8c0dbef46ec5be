private import CLibevent

/// POSTs webhook deliveries from one event loop with libevent's own HTTP client: a new
/// connection per delivery (plain, or TLS checked against the system's authorities and an
/// optional file of more), closed once the answer is in.
///
/// `post` may be called from any thread; everything else happens on the loop's thread, where
/// `completion` is called too, so it must hand slow work to another thread. Names are looked up
/// by libevent's resolver, so no lookup blocks the loop. Keep the client for as long as its loop
/// runs: a delivery still in flight when the loop ends gets no completion.
public final class WebhookClient: @unchecked Sendable {
    // `exchanges` and `nextSerial` are touched only on the loop's thread (see `onLoop`). The
    // rest is constant after init; libevent locks the loop's base and the resolver itself.
    let loop: EventLoop
    /// Each wait (connecting, the TLS handshake, each read and write) lasts at most this long,
    /// and a whole delivery at most twice this: from 1 s to a day.
    let timeoutSeconds: Int
    /// The TLS context for https targets, or why there is none.
    let tls: Result<RelayTLSContext, RelayProtocolError>
    /// libevent's resolver (`evdns_base`), reading resolv.conf and the hosts file once, here;
    /// nil if it could not be made, and then only addresses can be reached.
    let resolver: OpaquePointer?
    private var exchanges: [UInt64: WebhookExchange] = [:]
    private var nextSerial: UInt64 = 0

    /// `loop` must be running, or about to. `trustedCertificates`: a PEM file of authorities
    /// trusted beside the system's.
    init(loop: EventLoop, trustedCertificates: String?, timeoutSeconds: Int) {
        self.loop = loop
        self.timeoutSeconds = min(max(timeoutSeconds, 1), 86_400)
        do throws(RelayProtocolError) {
            tls = .success(try RelayTLSContext(trustedCertificates: trustedCertificates))
        } catch {
            tls = .failure(error)
        }
        // Made here, off the loop, since it reads files. With DISABLE_WHEN_INACTIVE its
        // sockets keep no event pending while nothing is being looked up.
        resolver = evdns_base_new(loop.base, EVDNS_BASE_INITIALIZE_NAMESERVERS | EVDNS_BASE_DISABLE_WHEN_INACTIVE)
    }

    deinit {
        // Every exchange holds the client, so none is left to be told.
        if let resolver { evdns_base_free(resolver, 1) }
    }

    /// POSTs `delivery.body` with Content-Type: application/json, User-Agent: Mailroom, Host,
    /// Connection: close and the delivery's headers, and calls `completion` once, on the loop's
    /// thread (on the caller's if the loop cannot take the job). Headers that fail
    /// `WebhookDelivery.headerProblem` are not sent: the result is `.retry` with the reason.
    public func post(_ delivery: WebhookDelivery, completion: @escaping @Sendable (WebhookResult) -> Void) {
        let problem = delivery.headerProblem
        let scheduled = onLoop {
            if let problem {
                completion(.retry(problem))
            } else {
                self.start(delivery, completion: completion)
            }
        }
        if !scheduled { completion(.retry("The webhook client cannot reach its event loop.")) }
    }

    // MARK: On the loop

    private func start(_ delivery: WebhookDelivery, completion: @escaping @Sendable (WebhookResult) -> Void) {
        guard !loop.isStopping else {
            completion(.retry("Mailroom is stopping."))
            return
        }
        nextSerial += 1
        let exchange = WebhookExchange(client: self, serial: nextSerial, delivery: delivery, completion: completion)
        exchanges[exchange.serial] = exchange
        exchange.begin()
    }

    /// The exchange has reported and let go of everything it held.
    func finished(_ exchange: WebhookExchange) {
        exchanges[exchange.serial] = nil
    }

    /// How many deliveries are in flight, told on the loop's thread: for tests that check
    /// every connection is let go of.
    func countInFlight(_ answer: @escaping @Sendable (Int) -> Void) {
        if !onLoop({ answer(self.exchanges.count) }) { answer(-1) }
    }

    /// Runs `job` on the loop's thread at its next turn; false if libevent could not take it.
    private func onLoop(_ job: @escaping @Sendable () -> Void) -> Bool {
        EventLoop.once(on: loop.base, job)
    }
}
