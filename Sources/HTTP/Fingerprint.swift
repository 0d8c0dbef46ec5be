/// FNV-1a: a fast 64-bit hash for ETags, where only change detection matters, not secrecy.
public enum Fingerprint {
    /// The hash of `bytes` as 16 lowercase hex digits.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let hash = bytes.withContiguousStorageIfAvailable(Self.hash) ?? Self.hash(Array(bytes))
        return hex(hash)
    }

    /// The hash of `text`'s UTF-8, read in place: an ETag is made on every page request.
    public static func hex(_ text: String) -> String {
        var text = text
        return hex(text.withUTF8(Self.hash))
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func hex(_ hash: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for index in 0..<16 {
                let nibble = Int(hash >> UInt64(60 - 4 * index) & 0xF)
                buffer[index] = digits.utf8Start[nibble]
            }
            return 16
        }
    }

    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer(hash)
    }
}
