import HTTP

/// ETags for pages: a reload of a page whose data, address and day are unchanged is a 304.
enum PageTag {
    static func `for`(boot: String, revision: Int, target: String, day: Int64) -> String {
        "W/\"\(boot)-r\(revision)-d\(day)-\(Fingerprint.hex(target))\""
    }

    static func matches(_ request: Request, _ etag: String) -> Bool {
        ETag.ifNoneMatch(request.headers["If-None-Match"], matches: etag)
    }

    static func notModified(_ etag: String) -> Response {
        Response(status: .notModified, headers: Headers([("ETag", etag)]))
    }
}
