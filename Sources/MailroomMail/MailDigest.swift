private import CGMime

/// SHA-256 through GLib (which GMime brings): the key that lets an import skip mail it has
/// already brought in.
public enum MailDigest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { return [] }
        defer { g_checksum_free(checksum) }
        bytes.withUnsafeBufferPointer { g_checksum_update(checksum, $0.baseAddress, $0.count) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = gsize(digest.count)
        digest.withUnsafeMutableBufferPointer { g_checksum_get_digest(checksum, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }
}
