import HTTP

/// Headers every response carries, so no page can be framed, sniffed or made to run foreign code.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static func apply(to response: inout Response) {
        // Routes never set these four themselves, so adding is enough (and cheaper than
        // replacing, which scans every field for each).
        response.headers.add("Content-Security-Policy", contentSecurityPolicy)
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Referrer-Policy", "same-origin")
        response.headers.add("X-Frame-Options", "DENY")
        if response.headers["Cache-Control"] == nil {
            // Pages reflect live data and the URL's state: always revalidate.
            response.headers.add("Cache-Control", "no-cache")
        }
    }
}
