/// Conditional GET: whether an `If-None-Match` header names `etag` (or `*`).
public enum ETag {
    public static func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains {
            let candidate = $0.trimmingCharacters(in: " \t")
            return candidate == etag || candidate == "*"
        }
    }
}
