import HTML
import HTTP

/// The readable page behind every refusal.
enum ErrorPages {
    static func response(for error: HTTPError) -> Response {
        let heading = "\(error.status.code) \(error.status.reason)"
        let page = Layout.document(title: heading + " — Mailroom", bodyClass: "error-page") {
            main(.id("content")) {
                h1 { heading }
                p(.class("error-message")) { error.message }
                p { a(.href(Paths.inbox)) { "Back to Inbox" } }
            }
        }
        var response = Response(status: error.status, html: page)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.add(name, value)
        }
        return response
    }
}
