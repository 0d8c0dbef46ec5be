private import CCrypto

/// SHA-256 through OpenSSL: the key that lets an import skip mail it has already brought in.
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
}
