import Glibc

/// A port nothing listens on at the moment, for the SMTP listener (where 0 means off): the
/// kernel picks one for a socket that is then closed.
enum FreePort {
    static func pick() throws -> Int {
        let held = try Held()
        return held.port
    }

    /// A port held bound and never listened on, for as long as this lives: a connection to it
    /// is refused, and no other test can start listening on it meanwhile (as one could on a
    /// port that `pick` let go).
    final class Held {
        let port: Int
        private let fd: Int32

        init() throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
            do {
                port = try FreePort.bind(fd)
            } catch {
                close(fd)
                throw error
            }
        }

        deinit { close(fd) }
    }

    /// Binds `fd` to a port of the kernel's choosing on 127.0.0.1: the port.
    private static func bind(_ fd: Int32) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
