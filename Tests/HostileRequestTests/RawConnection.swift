import Glibc

/// One TCP connection to 127.0.0.1 that writes exactly the bytes it is given and reads whatever
/// comes back; every wait is a `poll` with a deadline, never a sleep.
final class RawConnection {
    /// What the server sent, and how the connection ended.
    struct Received {
        var bytes: [UInt8] = []
        /// The server closed (or reset) the connection.
        var closed = false
        /// The close was a reset rather than an orderly end.
        var reset = false
    }

    let port: Int
    private var fd: Int32
    private(set) var received = Received()

    init(port: Int) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HostileTestError("socket failed: \(Self.lastError)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            let error = HostileTestError("connect to 127.0.0.1:\(port) failed: \(Self.lastError)")
            close(fd)
            throw error
        }
        // Each piece leaves as its own segment, so the server really sees a request in parts.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// Writes `bytes` in full; false when the server closed or reset the connection first,
    /// which a server refusing a request part-way may rightly do.
    @discardableResult
    func send(_ bytes: [UInt8], within seconds: Double = 5) throws -> Bool {
        let deadline = Deadline(seconds)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                guard !deadline.hasPassed else { throw HostileTestError("the server stopped reading for \(seconds) s") }
                _ = wait(for: Int16(POLLOUT), atMost: deadline.remaining)
            case EPIPE, ECONNRESET:
                return false
            default:
                throw HostileTestError("send failed: \(Self.lastError)")
            }
        }
        return true
    }

    /// Writes each piece with its own call, waiting `pause` seconds between them (or less, if
    /// the server answers or closes meanwhile). False when the server closed the connection first.
    @discardableResult
    func send(pieces: [[UInt8]], pause: Double) throws -> Bool {
        for (index, piece) in pieces.enumerated() {
            guard try send(piece) else { return false }
            if index < pieces.count - 1 { _ = wait(for: Int16(POLLIN), atMost: pause) }
        }
        return true
    }

    /// Reads until the server closes the connection, `enough` says the bytes so far suffice,
    /// or `seconds` pass.
    @discardableResult
    func read(within seconds: Double, until enough: ([UInt8]) -> Bool = { _ in false }) -> Received {
        let deadline = Deadline(seconds)
        while !received.closed && !enough(received.bytes) && !deadline.hasPassed {
            guard wait(for: Int16(POLLIN), atMost: deadline.remaining) else { continue }
            readAvailable()
        }
        return received
    }

    /// Whether the server has closed the connection, looking without waiting.
    var isClosedByServer: Bool {
        if !received.closed && wait(for: Int16(POLLIN), atMost: 0) { readAvailable() }
        return received.closed
    }

    // MARK: Private

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.bytes += chunk.prefix(count)
            } else if count == 0 {
                received.closed = true
                return
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else {
                received.closed = true
                received.reset = errno == ECONNRESET
                return
            }
        }
    }

    /// Polls for `events` (hang-ups and errors always count); true when something is ready.
    private func wait(for events: Int16, atMost seconds: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let result = poll(&descriptor, 1, Int32(max(0, (seconds * 1000).rounded(.up))))
        return result > 0
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

/// A point in monotonic time some seconds from now.
struct Deadline {
    private let end: ContinuousClock.Instant

    init(_ seconds: Double) {
        end = .now + .milliseconds(Int64(seconds * 1000))
    }

    var hasPassed: Bool { ContinuousClock.now >= end }

    var remaining: Double {
        let left = end - ContinuousClock.now
        let (seconds, attoseconds) = left.components
        return max(0, Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// Seconds taken by `body`, measured on the monotonic clock.
func secondsTaken<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let result = try body()
    let (seconds, attoseconds) = (ContinuousClock.now - start).components
    return (result, Double(seconds) + Double(attoseconds) / 1e18)
}

/// A failure of the test machinery itself, as opposed to a wrong answer from the server.
struct HostileTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
