/// Percent-decoding shared by paths, query strings and form bodies.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when asked) and checks the result is UTF-8
    /// without NUL bytes; nil when any of that fails.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> String? {
        // Most fields and paths hold no escape: then their bytes are only checked.
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == 0 || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return utf8(bytes)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count,
                      let h = hexValue(bytes[index + 1]), let l = hexValue(bytes[index + 2])
                else { return nil }
                output.append(h << 4 | l)
                index += 3
                continue
            case UInt8(ascii: "+") where plusIsSpace:
                output.append(UInt8(ascii: " "))
            default:
                output.append(byte)
            }
            index += 1
        }
        guard !output.contains(0) else { return nil }
        return output.withUnsafeBufferPointer(utf8)
    }

    /// The bytes as text if they are valid UTF-8: decoding repairs what is not, so a text whose
    /// bytes differ from the input was repaired.
    private static func utf8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Escapes everything but unreserved characters and the comma (which id lists use and a
    /// query may hold as it is), for building query strings and paths.
    static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: ","):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(digits[Int(byte >> 4)])
                output.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
