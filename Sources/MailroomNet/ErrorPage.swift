import HTML
import HTTP

/// The small HTML page the server itself answers with when a request cannot reach the handler.
public enum ErrorPage {
    public static func response(for error: HTTPError) -> Response {
        let title = "\(error.status.code) \(error.status.reason)"
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <link rel="stylesheet" href="/style.css"></head>
            <body class="error-page"><main><h1>\(title)</h1><p>\(Escaping.text(error.message))</p>\
            <p><a href="/">Back to Mailroom</a></p></main></body></html>

            """
        var response = Response(status: error.status, html: Array(html.utf8))
        for (name, value) in error.headers { response.headers.add(name, value) }
        return response
    }
}
