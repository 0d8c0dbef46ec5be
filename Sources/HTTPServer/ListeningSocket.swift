import Glibc

/// Opens non-blocking listening sockets; one per event loop, all on the same port.
enum ListeningSocket {
    /// Opens `count` sockets on `host:port` with `SO_REUSEPORT`, so the kernel spreads
    /// connections over them; with port 0 the first one's port is reused for the rest.
    static func open(host: String, port: Int, count: Int) throws(ServerError) -> (sockets: [Int32], port: Int) {
        var sockets: [Int32] = []
        var boundPort = port
        do {
            for _ in 0..<max(count, 1) {
                let fd = try openOne(host: host, port: boundPort)
                sockets.append(fd)
                if boundPort == 0 { boundPort = try localPort(of: fd) }
            }
        } catch {
            for fd in sockets { close(fd) }
            throw error
        }
        return (sockets, boundPort)
    }

    private static func openOne(host: String, port: Int) throws(ServerError) -> Int32 {
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
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size)
        // Linux copies TCP_NODELAY to accepted sockets, so small response tails are not
        // held back waiting for the client's delayed ACK.
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, size)
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = systemError("cannot listen on \(host):\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, 1024) == 0 else {
            let error = systemError("listen")
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
