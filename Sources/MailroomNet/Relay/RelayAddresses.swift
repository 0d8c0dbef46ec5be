import Glibc

/// The relay's socket addresses, each a `sockaddr`'s bytes, in the order `getaddrinfo` gives
/// them (the system's preference between IPv6 and IPv4).
enum RelayAddresses {
    /// Looks `host` up; this may wait on DNS, so it runs on a worker thread, never on a loop.
    static func resolve(host: String, port: Int) -> Result<[[UInt8]], RelayProtocolError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failure(RelayProtocolError(reason: "The relay host \(host) cannot be resolved: \(String(cString: gai_strerror(status)))."))
        }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let info = entry {
            if let address = info.pointee.ai_addr, info.pointee.ai_addrlen > 0 {
                addresses.append(Array(UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen))))
            }
            entry = info.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(RelayProtocolError(reason: "The relay host \(host) has no address."))
        }
        return .success(addresses)
    }

    /// "192.0.2.1:25" or "[2001:db8::1]:25", for messages.
    static func describe(_ address: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withSocketAddress(address) { pointer, length in
            getnameinfo(pointer, length, &text, socklen_t(text.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard status == 0 else { return "the relay" }
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Lends `address` as a `sockaddr`, copied into storage of the right type and alignment.
    static func withSocketAddress<Value>(_ address: [UInt8], _ body: (UnsafePointer<sockaddr>, socklen_t) -> Value) -> Value {
        var storage = sockaddr_storage()
        let length = min(address.count, MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { raw in
            address.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(length))) }
        }
        return withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
