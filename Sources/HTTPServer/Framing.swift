import HTTP

/// Refuses requests whose body length could be read two ways, which libevent would accept.
enum Framing {
    static func check(method: HTTP.Method, headers: Headers) throws(HTTPError) {
        let lengths = headers.values(for: "Content-Length")
        guard lengths.count <= 1 else {
            throw HTTPError(.badRequest, "The request has more than one Content-Length.")
        }
        if let length = lengths.first {
            // libevent takes "+37" as 37; a length is digits and nothing else.
            guard !length.isEmpty, length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw HTTPError(.badRequest, "Content-Length must be a number.")
            }
        }
        let hasBody = !lengths.isEmpty || headers["Transfer-Encoding"] != nil
        if !hasBody && (method == .post || method == .put || method == .patch) {
            throw HTTPError(.lengthRequired, "A \(method.name) needs a Content-Length.")
        }
    }
}
