import Glibc

/// Why a client connection failed, worded for the person who ran the command.
public struct ClientSocketError: Error, Sendable {
    public let message: String
}

/// A blocking TCP connection from a command to a running Mailroom: `mailroom sendmail` speaks
/// SMTP over it and `mailroom import --url` HTTP. Whole writes out; lines and counted bodies in.
public final class ClientSocket {
    private let descriptor: Int32
    /// Bytes received and not yet read.
    private var pending: [UInt8] = []

    /// Connects to `host:port`; a reply that does not come within five minutes is a failure.
    public init(host: String, port: Int) throws(ClientSocketError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw ClientSocketError(message: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let refused = { (error: SystemCallError) in
            ClientSocketError(message: "cannot connect to Mailroom at \(host):\(port): \(error.reason)")
        }
        let fd: Int32
        do throws(SystemCallError) {
            guard let opened = try Syscall.run({ socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0) }) else {
                throw SystemCallError(code: EAGAIN)
            }
            fd = opened
        } catch {
            throw refused(error)
        }
        do throws(SystemCallError) {
            guard try Syscall.run(retryingInterrupts: false, { connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }) != nil else {
                throw SystemCallError(code: EAGAIN)
            }
        } catch {
            Syscall.close(fd)
            throw refused(error)
        }
        var wait = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    public func close() {
        Syscall.close(descriptor)
    }

    /// Sends all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(ClientSocketError) {
        var sent = 0
        while sent < bytes.count {
            let count = try? Syscall.run {
                bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            }
            guard let count = count ?? nil, count > 0 else {
                throw ClientSocketError(message: "the connection to Mailroom broke while sending")
            }
            sent += count
        }
    }

    /// The next line, without its LF or CRLF.
    public func readLine() throws(ClientSocketError) -> String {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            try receive(atMost: 4_096)
        }
    }

    /// Exactly `count` bytes (an HTTP body).
    public func read(_ count: Int) throws(ClientSocketError) -> [UInt8] {
        while pending.count < count {
            try receive(atMost: 65_536)
        }
        let bytes = Array(pending[..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// Waits for more bytes; the end of the connection, a failure and a reply that took too
    /// long alike are a closed connection.
    private func receive(atMost size: Int) throws(ClientSocketError) {
        var buffer = [UInt8](repeating: 0, count: size)
        let count = try? Syscall.run { recv(descriptor, &buffer, buffer.count, 0) }
        guard let count = count ?? nil, count > 0 else {
            throw ClientSocketError(message: "Mailroom closed the connection")
        }
        pending += buffer[0..<count]
    }
}
