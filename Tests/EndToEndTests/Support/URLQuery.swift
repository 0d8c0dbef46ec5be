/// Form encoding as browsers do it, and reading fields back out of a URL.
enum URLQuery {
    /// `application/x-www-form-urlencoded`: spaces as `+`, everything but unreserved bytes escaped.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "."), UInt8(ascii: "*"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                let hex = Array("0123456789ABCDEF")
                output += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return output
    }

    /// Every value of `name` in the query of `url`.
    static func values(_ name: String, in url: String) -> [String] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        return url[url.index(after: question)...].split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard unescape(parts[0]) == name else { return nil }
            return parts.count > 1 ? unescape(parts[1]) : ""
        }
    }

    /// The ids of one compact id list such as `1,3-4`, as the app writes `selected` and `undo`
    /// and the Undo form's `id`; nil when an item is neither an id nor an ascending range of them.
    static func ids(inList list: String) -> [Int]? {
        var ids: [Int] = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false).map { bound -> Int? in
                guard let first = bound.first, first != "0", bound.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                return Int(bound)
            }
            guard (1...2).contains(bounds.count), let first = bounds[0], let last = bounds[bounds.count - 1], first <= last
            else { return nil }
            ids += Array(first...last)
        }
        return ids
    }

    /// The compact spelling of `ids`: ascending, each run of consecutive ids as `first-last`.
    static func idList(_ ids: [Int]) -> String {
        var runs: [ClosedRange<Int>] = []
        for id in Set(ids).sorted() {
            if let last = runs.last, last.upperBound + 1 == id {
                runs[runs.count - 1] = last.lowerBound...id
            } else {
                runs.append(id...id)
            }
        }
        return runs.map { $0.count == 1 ? String($0.lowerBound) : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    private static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
               let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low != utf8.endIndex,
               let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
