import HTTP

/// Headers every response carries, so no page can be framed, sniffed or made to run foreign code.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The message page when it frames a mail's HTML: the same, with frames from Mailroom itself.
    static let framingPolicy = contentSecurityPolicy + "; frame-src 'self'"

    /// The four fields, also given to the static files, whose answers are made once with them.
    static let fields = Headers([
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("X-Frame-Options", "DENY"),
    ])

    /// Adds the fields, and `Cache-Control: no-cache` unless the response says otherwise. A
    /// prepared response (a static file, a cached page) was made with them and is left as it is.
    static func apply(to response: inout Response) {
        guard !response.isPrepared else { return }
        // Most routes never set these four themselves, so adding is enough (and cheaper than
        // replacing, which scans every field for each). One that sets its own policy (a mail's
        // HTML frame, a download) keeps what it set.
        if response.headers["Content-Security-Policy"] == nil {
            for field in fields { response.headers.add(field.name, field.value) }
        } else {
            for field in fields where response.headers[field.name] == nil { response.headers.add(field.name, field.value) }
        }
        if response.headers["Cache-Control"] == nil {
            // Pages reflect live data and the URL's state: always revalidate.
            response.headers.add("Cache-Control", "no-cache")
        }
    }
}
