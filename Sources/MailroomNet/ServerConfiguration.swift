import HTTP

/// Where and how a server listens, and the limits it enforces before any handler runs.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; `Server.port` tells which.
    public var port: Int
    /// Event loops, each on its own thread with its own listening socket.
    public var threads: Int
    /// How many of the loops take SMTP sessions (with a listening socket of their own): half of
    /// them, at least one. A message costs its loop about a hundred µs of parsing and replies,
    /// and the group commit's thread and the senders need cores too; on 2 cores, sessions spread
    /// over both loops cost about a tenth more CPU a message than on one, and take no more
    /// messages a second (docs/benchmarks.md); the other loop keeps serving pages meanwhile.
    public var mailThreads: Int { max(1, threads / 2) }
    public var maxBodyBytes: Int
    /// The request line's target; longer is 414.
    public var maxURLBytes: Int
    /// All header fields together; more is 431.
    public var maxHeaderBytes: Int
    /// How many header fields; more is 431.
    public var maxHeaderCount: Int
    /// Seconds a connection may sit idle or trickle a request before it is closed.
    public var timeoutSeconds: Int
    /// Connections open at once over every loop (0: no cap). At the cap the loops stop accepting
    /// for a moment and the kernel's queue holds newcomers; see `DescriptorLimit` for the default.
    public var maxConnections: Int = 0
    /// Connections open at once from one address (0: no cap); one more is answered 503 and closed.
    public var maxConnectionsPerAddress: Int = 256
    /// Seconds between the comments written to idle event streams, so proxies and the client
    /// see the connection is alive (and a dead one is noticed).
    public var heartbeatSeconds: Int = 15
    /// Seconds an event stream lasts before it is closed; EventSource reconnects on its own and
    /// resumes where it was (Last-Event-ID), so a client that stopped reading holds its slot no longer.
    public var maxStreamSeconds: Int = 600
    /// POSTs to paths starting with this (mail imports) may send bodies up to `maxUploadBytes`.
    public var uploadPath: String?
    public var maxUploadBytes: Int = 0
    /// When set, only uploads whose `Authorization` this accepts may be that large.
    public var uploadAuthorization: RequestLimits.UploadAuthorization?

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        threads: Int = 1,
        maxBodyBytes: Int = 64 * 1024,
        maxURLBytes: Int = 32 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        timeoutSeconds: Int = 30
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.maxURLBytes = maxURLBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.timeoutSeconds = timeoutSeconds
    }
}

/// A server that could not start, with the reason a person needs to fix it.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// Work the server runs every so often on one of its loops, between requests: the process's own
/// upkeep, such as handing unused memory back to the system.
public struct Housekeeping: Sendable {
    public let intervalSeconds: Int
    public let task: @Sendable () -> Void

    public init(everySeconds intervalSeconds: Int, _ task: @escaping @Sendable () -> Void) {
        self.intervalSeconds = intervalSeconds
        self.task = task
    }
}
