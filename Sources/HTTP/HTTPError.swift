/// A request the application refuses, with the status and a sentence for the person who sent it.
public struct HTTPError: Error, Hashable, Sendable {
    public let status: Status
    public let message: String
    /// Extra headers the refusal needs, such as `Allow` on a 405.
    public var headers: [String: String]

    public init(_ status: Status, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }
}
