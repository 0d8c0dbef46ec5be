/// Where and how a server listens, and the limits it enforces before any handler runs.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; `Server.port` tells which.
    public var port: Int
    /// Event loops, each on its own thread with its own listening socket.
    public var threads: Int
    public var maxBodyBytes: Int
    public var maxHeaderBytes: Int
    /// Seconds a connection may sit idle or trickle a request before it is closed.
    public var timeoutSeconds: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        threads: Int = 1,
        maxBodyBytes: Int = 64 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        timeoutSeconds: Int = 30
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.timeoutSeconds = timeoutSeconds
    }
}

/// A server that could not start, with the reason a person needs to fix it.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
