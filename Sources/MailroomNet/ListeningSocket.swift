import Glibc
import Synchronization

/// Opens non-blocking listening sockets; one per event loop, all on the same port.
enum ListeningSocket {
    /// Opens `count` sockets on `host:port` with `SO_REUSEPORT`, so the kernel spreads
    /// connections over them; with port 0 the first one's port is reused for the rest.
    ///
    /// `SO_REUSEPORT` would also let a second process of the same user join the port and take
    /// half its connections. So the port is first claimed (`PortClaim`, which a second Mailroom
    /// cannot take) and probed with a plain bind (which fails while anything else listens on
    /// it); only then do the shared sockets bind. The claim is held as long as the sockets are.
    static func open(host: String, port: Int, count: Int) throws(ServerError) -> (sockets: [Int32], port: Int, claim: PortClaim) {
        var sockets: [Int32] = []
        var boundPort = port
        var claim: PortClaim?
        do {
            if port != 0 {
                claim = try PortClaim(port: port, host: host)
                try probe(host: host, port: port)
            }
            for _ in 0..<max(count, 1) {
                let fd = try openOne(host: host, port: boundPort)
                sockets.append(fd)
                if boundPort == 0 {
                    boundPort = try localPort(of: fd)
                    claim = try PortClaim(port: boundPort, host: host)
                }
            }
        } catch {
            for fd in sockets { close(fd) }
            claim?.release()
            throw error
        }
        guard let claim else { throw ServerError(description: "no socket was opened on \(host):\(port)") }
        return (sockets, boundPort, claim)
    }

    /// Binds and listens once without `SO_REUSEPORT`: the kernel refuses that while any other
    /// socket listens on the port (on this address or the wildcard), whoever owns it.
    private static func probe(host: String, port: Int) throws(ServerError) {
        let fd = try openOne(host: host, port: port, sharing: false)
        close(fd)
    }

    private static func openOne(host: String, port: Int, sharing: Bool = true) throws(ServerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let info = list else {
            throw ServerError(description: "cannot resolve host \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }

        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError("socket") }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size)
        if sharing { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size) }
        // Linux copies TCP_NODELAY to accepted sockets, so small response tails are not
        // held back waiting for the client's delayed ACK.
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = errno == EADDRINUSE
                ? ServerError(description: "cannot listen on \(host):\(port): another process is already listening on "
                    + "port \(port) (another Mailroom?). Stop it, or choose another port.")
                : systemError("cannot listen on \(host):\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, 1024) == 0 else {
            let error = errno == EADDRINUSE
                ? ServerError(description: "cannot listen on \(host):\(port): another process is already listening on "
                    + "port \(port) (another Mailroom?). Stop it, or choose another port.")
                : systemError("listen")
            close(fd)
            throw error
        }
        return fd
    }

    private static func localPort(of fd: Int32) throws(ServerError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { throw systemError("getsockname") }
        let family = storage.ss_family
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
            }
        }
        return Int(UInt16(bigEndian: port))
    }

    private static func systemError(_ what: String) -> ServerError {
        ServerError(description: "\(what): \(String(cString: strerror(errno)))")
    }
}

/// A TCP port held by this process alone among Mailrooms: a Unix socket bound to a name in
/// Linux's abstract namespace, which exists as long as it is open (a crash frees it) and which
/// only one socket at a time can hold. Abstract names belong to the network namespace, as ports do.
final class PortClaim: Sendable {
    private let socket: Mutex<Int32?>

    init(port: Int, host: String) throws(ServerError) {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // A leading NUL puts the name in the abstract namespace: no file, nothing left behind.
        let name = Array("\0mailroom-tcp-port-\(port)".utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in name.prefix(path.count).enumerated() { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, length) }
        }
        guard status == 0 else {
            let reason = errno
            close(fd)
            if reason == EADDRINUSE {
                throw ServerError(description: "cannot listen on \(host):\(port): another Mailroom is already serving "
                    + "port \(port). Stop it, or choose another port.")
            }
            throw ServerError(description: "cannot claim port \(port): \(String(cString: strerror(reason)))")
        }
        socket = Mutex(fd)
    }

    deinit {
        release()
    }

    /// Lets another Mailroom take the port.
    func release() {
        socket.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }
}
