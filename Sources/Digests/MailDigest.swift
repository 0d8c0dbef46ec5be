private import CCrypto

/// SHA-256 through OpenSSL: the key that lets an import skip mail it has already brought in,
/// and HMAC-SHA256, the signature on a webhook call.
public enum MailDigest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        return done == 1 ? Array(digest.prefix(Int(length))) : []
    }

    /// HMAC-SHA256 of `bytes` under `key` (RFC 2104), as lowercase hex.
    public static func hmacSHA256Hex(key: [UInt8], _ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { secret in
            bytes.withUnsafeBytes { input in
                digest.withUnsafeMutableBufferPointer { output in
                    HMAC(EVP_sha256(), secret.baseAddress, Int32(secret.count), input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         input.count, output.baseAddress, &length)
                }
            }
        }
        guard done != nil else { return "" }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.prefix(Int(length)).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}
