import Glibc

/// Where a webhook goes: an http or https URL taken apart into what the request needs.
///
/// User-info (`https://user:secret@host/`) is refused rather than dropped: it would not be
/// sent, and the URL, shown as given, would carry the secret. The fragment is never sent, so
/// it is not kept. Non-ASCII in the path or query is percent-encoded; spaces and control
/// characters anywhere make the URL unusable. Host names are ASCII (no IDNA).
public struct WebhookTarget: Sendable, Equatable {
    /// The URL as given.
    public var url: String
    /// "http" or "https".
    public let scheme: String
    /// A name in lower case, or an address (an IPv6 one without its brackets).
    public let host: String
    public let port: Int
    /// The path and query, "/" when the URL has neither.
    public let path: String

    /// Parses `url`; nil unless it is http or https with a host.
    public init?(_ url: String) {
        guard let parts = WebhookTarget.parse(Array(url.utf8)) else { return nil }
        self.url = url
        (scheme, host, port, path) = parts
    }

    /// The scheme's own port, left out of the Host header.
    var defaultPort: Int { scheme == "https" ? 443 : 80 }

    /// The host and port as written in a URL: brackets around an IPv6 address.
    var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(name):\(port)"
    }

    /// The Host header's value (RFC 9110 7.2): the port only when it is not the scheme's.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? name : "\(name):\(port)"
    }

    private static func parse(_ bytes: [UInt8]) -> (String, String, Int, String)? {
        // Spaces and controls cannot reach the request line; a URL with them is a mistake.
        guard bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return nil }
        let separator = Array("://".utf8)
        guard let schemeEnd = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let scheme = String(decoding: bytes[..<schemeEnd], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = bytes[(schemeEnd + separator.count)...]
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        guard let (host, port) = hostAndPort(rest[..<authorityEnd], defaultPort: scheme == "https" ? 443 : 80) else {
            return nil
        }
        let afterAuthority = rest[authorityEnd...]
        let target = afterAuthority.prefix { $0 != UInt8(ascii: "#") }
        var path = target.first == UInt8(ascii: "/") ? [] : Array("/".utf8)
        path += target
        return (scheme, host, port, percentEncodingNonASCII(path))
    }

    private static func hostAndPort(_ authority: ArraySlice<UInt8>, defaultPort: Int) -> (String, Int)? {
        guard !authority.contains(UInt8(ascii: "@")) else { return nil }
        let host: ArraySlice<UInt8>
        let portText: ArraySlice<UInt8>
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            guard after.isEmpty || after.first == UInt8(ascii: ":") else { return nil }
            portText = after.dropFirst()
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(decoding: host, as: UTF8.self), &address) == 1 else { return nil }
        } else {
            let colons = authority.filter { $0 == UInt8(ascii: ":") }.count
            guard colons <= 1 else { return nil }
            let colon = authority.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
            host = authority[..<colon]
            portText = authority[colon...].dropFirst()
            guard host.allSatisfy(isNameByte) else { return nil }
        }
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let number = Int(String(decoding: portText, as: UTF8.self)), (1...65_535).contains(number)
            else { return nil }
            port = number
        }
        return (String(decoding: host, as: UTF8.self).lowercased(), port)
    }

    /// Letters, digits, '-', '.' and '_': names and IPv4 addresses, nothing percent-encoded.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    private static func percentEncodingNonASCII(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte < 0x80 {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
