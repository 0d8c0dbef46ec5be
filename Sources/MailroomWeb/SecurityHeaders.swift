import HTTP

/// Headers every response carries, so no page can be framed, sniffed or made to run foreign code.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static func apply(to response: inout Response) {
        response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "same-origin")
        response.headers.set("X-Frame-Options", "DENY")
        if response.headers["Cache-Control"] == nil {
            // Pages reflect live data and the URL's state: always revalidate.
            response.headers.set("Cache-Control", "no-cache")
        }
    }
}
