import HTTP

/// ETags for pages: a reload of a page whose data, address and day are unchanged is a 304.
enum PageTag {
    static func `for`(revision: Int, target: String, day: Int64) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in target.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "W/\"r\(revision)-d\(day)-\(String(hash, radix: 16))\""
    }

    static func matches(_ request: Request, _ etag: String) -> Bool {
        guard let sent = request.headers["If-None-Match"] else { return false }
        return sent.split(separator: ",").contains { $0.trimmingSpaces == etag }
    }

    static func notModified(_ etag: String) -> Response {
        Response(status: .notModified, headers: Headers([("ETag", etag)]))
    }
}
