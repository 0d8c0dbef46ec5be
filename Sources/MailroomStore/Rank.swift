/// Numbers that place messages in a mailbox's own order.
///
/// A message's rank is a sparse integer: larger is higher in the list. New mail on top takes the
/// top rank plus `gap`; a move takes a rank between its new neighbours; only when two neighbours
/// have no room left between them is a small window of rows spread out again. So a change writes
/// the rows it moves, never a number of rows that grows with the mailbox.
enum Rank {
    static let gap: Int64 = 1 << 20
    /// How much of a body a list row keeps as its preview, in bytes of UTF-8.
    static let previewLength = 300

    /// `count` ranks strictly between `low` and `high` (either open-ended when nil), evenly
    /// spread, highest first; nil when there is no room for them.
    static func spread(_ count: Int, above low: Int64?, below high: Int64?) -> [Int64]? {
        guard count > 0 else { return [] }
        let step: Int64
        let top: Int64
        switch (low, high) {
        case (nil, nil):
            step = gap
            top = Int64(count) * gap
        case (let low?, nil):
            step = gap
            top = low + Int64(count) * gap
        case (nil, let high?):
            step = gap
            top = high - gap
        case (let low?, let high?):
            let room = high - low
            guard room > Int64(count) else { return nil }
            step = room / Int64(count + 1)
            top = high - step
        }
        return (0..<count).map { top - Int64($0) * step }
    }

    /// The start of a body on one line, as a list row shows it, cut on a character boundary.
    static func preview(of body: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(min(body.utf8.count, previewLength))
        var pendingSpace = false
        for byte in body.utf8 {
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                pendingSpace = !output.isEmpty
                continue
            }
            if output.count >= previewLength { break }
            if pendingSpace {
                output.append(0x20)
                pendingSpace = false
            }
            output.append(byte)
        }
        // Drop a multi-byte sequence cut in half.
        while let last = output.last, last & 0xC0 == 0x80 || last >= 0xC0 {
            let start = output.lastIndex { $0 & 0xC0 != 0x80 } ?? 0
            let length = output.count - start
            let lead = output[start]
            let expected = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if length == expected { break }
            output.removeLast(length)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
