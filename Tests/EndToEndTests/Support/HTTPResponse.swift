/// One response as it came off the wire: status line, header fields in order, and the body bytes.
struct HTTPResponse {
    let status: Int
    let reason: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    /// The first value of a header, compared without regard to case.
    func header(_ name: String) -> String? {
        headerValues(name).first
    }

    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }

    /// Whether the server said it will close the connection after this response.
    var closesConnection: Bool {
        header("Connection")?.lowercased().contains("close") ?? false
    }
}
