/// One HTTP request as the application sees it: already framed, with the target split up.
public struct Request: Sendable {
    public var method: Method
    /// The decoded path, always starting with "/".
    public var path: String
    /// The query string's fields.
    public var query: FormData
    public var headers: Headers
    public var body: [UInt8]
    /// The client's address as the server saw it, for logs and per-client limits.
    public var peer: String = "-"
    /// The request target as it was sent, for logs.
    public var target: String
    /// 1 for HTTP/1.1, 0 for HTTP/1.0 (which does not need a Host header).
    public var minorVersion = 1
    /// The body's form, once `decodingForm()` has read it: checks and routes that each ask for
    /// the form then share one decoding.
    private var decodedForm: FormData?

    public init(method: Method, path: String, query: FormData = FormData(), headers: Headers = Headers(), body: [UInt8] = []) {
        self.init(method: method, path: path, query: query, target: query.isEmpty ? path : path + "?" + query.urlEncoded,
                  headers: headers, body: body)
    }

    private init(method: Method, path: String, query: FormData, target: String, headers: Headers, body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.target = target
    }

    /// Splits a request target such as `/a%20b?x=1` into its decoded path and query.
    public init(method: Method, target: String, headers: Headers = Headers(), body: [UInt8] = []) throws(HTTPError) {
        // (`hasPrefix` compares characters: a slash that a combining mark joins is no slash.)
        guard target.hasPrefix("/") else {
            throw HTTPError(.badRequest, "The request target must start with “/”.")
        }
        // Most targets are a plain path: nothing to split or decode.
        if !target.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "#") || $0 == 0 }) {
            self.init(method: method, path: target, query: FormData(), target: target, headers: headers, body: body)
            return
        }
        // A fragment is the client's own: a browser never sends one, and what does is cut
        // there, as the target it names is the part before.
        var bytes = target.utf8.firstIndex(of: UInt8(ascii: "#")).map { String(target[..<$0]) } ?? target
        let sent = bytes
        let (path, query) = try bytes.withUTF8 { bytes -> Result<(String, FormData), HTTPError> in
            let mark = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            guard let path = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[..<mark]), plusIsSpace: false) else {
                return .failure(HTTPError(.badRequest, "The path is not valid percent-encoded UTF-8."))
            }
            // An escaped mark right after the slash (`/%CC%81`) joins it into one character
            // that is no slash: a path every route and file takes to start with "/" must.
            guard path.hasPrefix("/") else {
                return .failure(HTTPError(.badRequest, "The path must start with “/” on its own."))
            }
            guard mark < bytes.count else { return .success((path, FormData())) }
            do throws(FormData.DecodingError) {
                return .success((path, try FormData(urlEncoded: UnsafeBufferPointer(rebasing: bytes[(mark + 1)...]))))
            } catch {
                return .failure(HTTPError(.badRequest, "The query string is malformed: \(error.message)"))
            }
        }.get()
        // The target as sent: encoding the query again would only make a copy of it.
        self.init(method: method, path: path, query: query, target: sent, headers: headers, body: body)
    }

    /// The body's form fields, if it is a URL-encoded form.
    public func form() throws(HTTPError) -> FormData {
        if let decodedForm { return decodedForm }
        let type = headers["Content-Type"]?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: " \t") ?? ""
        guard Headers.sameName(type, "application/x-www-form-urlencoded") else {
            throw HTTPError(.unsupportedMediaType, "Send the form as application/x-www-form-urlencoded.")
        }
        do {
            return try FormData(urlEncoded: body)
        } catch {
            throw HTTPError(.badRequest, "The form is malformed: \(error.message)")
        }
    }

    /// The request with its form decoded once for every later `form()`; unchanged when the body
    /// is no form (then each `form()` throws as before).
    public func decodingForm() -> Request {
        guard decodedForm == nil, let form = try? form() else { return self }
        var decoded = self
        decoded.decodedForm = form
        return decoded
    }
}

extension Substring {
    /// The text without leading and trailing characters from `set`, which holds ASCII only
    /// (whitespace and the like): bytes are compared, so no character is ever built.
    public func trimmingCharacters(in set: String) -> String {
        let trimmed = set.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, trimmed.contains(utf8[start]) { start = utf8.index(after: start) }
        while start < end, trimmed.contains(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }
}
