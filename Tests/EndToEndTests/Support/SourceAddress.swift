import Glibc

/// Binds `fd` to `source` (a loopback address such as 127.0.0.2) before it connects, so the
/// server sees the connection come from there. False, with errno set, if it cannot.
func bindSource(_ fd: Int32, to source: String) -> Bool {
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    return withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}
