/// What one webhook delivery came to.
public enum WebhookResult: Sendable, Equatable {
    /// The receiver answered 2xx.
    case delivered(status: Int)
    /// The receiver answered 4xx other than 408 and 429, or 3xx (redirects are not followed,
    /// so the URL needs fixing): final.
    case rejected(status: Int)
    /// Worth trying again later: 5xx, 408, 429, or no answer at all (the connection, TLS or
    /// a timeout failed). Why, in a sentence.
    case retry(String)

    /// What an answer with `status` from `peer` comes to.
    static func answered(_ status: Int, by peer: String) -> WebhookResult {
        switch status {
        case 200..<300: .delivered(status: status)
        case 408: .retry("The receiver at \(peer) answered 408: it timed out waiting for the request.")
        case 429: .retry("The receiver at \(peer) answered 429: too many requests.")
        case 500..<600: .retry("The receiver at \(peer) answered \(status).")
        case 300..<500: .rejected(status: status)
        default: .retry("The receiver at \(peer) answered with status \(status), which HTTP does not define.")
        }
    }
}
