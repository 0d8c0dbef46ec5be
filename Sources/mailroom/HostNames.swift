import Glibc

/// The names and addresses under which people reach this Mailroom; any other Host is refused.
enum HostNames {
    static func allowed(bindingTo host: String, extra: [String]) -> Set<String> {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        names.insert(host.lowercased())
        if host == "0.0.0.0" || host == "::" {
            names.formUnion(interfaceAddresses())
            if let name = machineName() {
                names.insert(name)
                names.insert(name + ".local")
            }
        }
        names.formUnion(extra.map { $0.lowercased() })
        return names
    }

    /// A host others can use to reach a listener bound to `host`: the host itself, or for a
    /// wildcard (0.0.0.0, ::) this machine's first IPv4 address off the loopback, else its name.
    static func reachable(bindingTo host: String) -> String {
        guard host == "0.0.0.0" || host == "::" else { return host }
        let outward = interfaceAddresses().filter { $0.contains(".") && !$0.hasPrefix("127.") }.sorted()
        return outward.first ?? machineName() ?? "127.0.0.1"
    }

    /// Every IPv4 and IPv6 address of this machine's interfaces.
    private static func interfaceAddresses() -> Set<String> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: Set<String> = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            // Link-local IPv6 addresses come with a %interface suffix that no Host header carries.
            let name = String(cString: text).split(separator: "%").first.map(String.init) ?? ""
            if !name.isEmpty { addresses.insert(name.lowercased()) }
        }
        return addresses
    }

    private static func machineName() -> String? {
        var text = [CChar](repeating: 0, count: 256)
        guard gethostname(&text, text.count) == 0 else { return nil }
        let name = String(cString: text).lowercased()
        return name.isEmpty ? nil : name
    }
}
