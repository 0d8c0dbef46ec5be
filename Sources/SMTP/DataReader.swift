/// The text after DATA, read as it arrives (RFC 5321 4.1.1.4, 4.5.2).
///
/// It ends at `<CRLF>.<CRLF>` and at nothing else: a bare `<LF>.<LF>` (or `<CR>.<CR>`) is text,
/// which closes the "SMTP smuggling" hole, where a second message hides inside the first. A line
/// that starts with a dot after a CRLF loses that dot (dot-stuffing undone); bare LFs are kept as
/// sent. The text is kept once, as it arrives; past a limit it is no longer kept, but still read
/// to its end, so that the session can go on.
struct DataReader {
    enum Outcome: Equatable {
        case complete
        case tooLarge
        case lineTooLong
    }

    private enum State {
        /// After a CRLF, or at the very start (the DATA line's CRLF counts).
        case lineStart
        /// A dot at the start of a line.
        case dot
        /// A dot at the start of a line, then a CR.
        case dotCR
        case text
        /// A CR inside a line.
        case textCR
    }

    private(set) var text: [UInt8] = []
    private var state = State.lineStart
    private var lineBytes = 0
    private var problem: Outcome?
    let maxBytes: Int
    let maxLineBytes: Int

    /// `expectedBytes` is the size the client announced (SIZE): room for that much is made at
    /// once, so a large message is not copied each time its buffer grows.
    init(maxBytes: Int, maxLineBytes: Int, expectedBytes: Int? = nil) {
        self.maxBytes = maxBytes
        self.maxLineBytes = maxLineBytes
        if let expectedBytes, expectedBytes > 0, expectedBytes <= maxBytes {
            text.reserveCapacity(expectedBytes)
        }
    }

    /// Reads from `bytes` until the end of the text or of `bytes`: how many bytes it took, and
    /// the outcome once the end was found.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (consumed: Int, outcome: Outcome?) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch state {
            case .lineStart:
                if byte == dot {
                    state = .dot
                } else {
                    // An ordinary line (or an empty one): read this byte as text.
                    state = .text
                    index -= 1
                }
            case .dot:
                if byte == cr {
                    state = .dotCR
                } else {
                    // A stuffed dot: the one the client added goes; the rest of the line stays.
                    state = .text
                    index -= 1
                }
            case .dotCR:
                if byte == lf {
                    state = .lineStart
                    return (index, problem ?? .complete)
                }
                // ".\r" then something else: the dot was stuffing, the CR is text.
                take(cr)
                state = .text
                index -= 1
            case .text:
                if byte == cr {
                    state = .textCR
                } else if byte == lf {
                    take(byte)
                } else {
                    // The rest of an ordinary line, up to its CR or LF, in one piece.
                    var end = index
                    while end < bytes.count, bytes[end] != cr, bytes[end] != lf { end += 1 }
                    take(UnsafeBufferPointer(rebasing: bytes[(index - 1)..<end]))
                    index = end
                }
            case .textCR:
                if byte == lf {
                    take(cr)
                    take(lf)
                    state = .lineStart
                } else {
                    take(cr)
                    state = .text
                    index -= 1
                }
            }
        }
        return (index, nil)
    }

    /// Keeps bytes of one line that hold no CR or LF, as `take` would one by one.
    private mutating func take(_ run: UnsafeBufferPointer<UInt8>) {
        let count = run.count
        let before = lineBytes
        lineBytes += count
        guard problem == nil else { return }
        // The first byte (counted from 1) that would break each limit; the line's is checked first.
        let breaksLine = max(maxLineBytes - 2 - before, 0) + 1
        let breaksSize = max(maxBytes - text.count, 0) + 1
        if count >= min(breaksLine, breaksSize) {
            problem = breaksLine <= breaksSize ? .lineTooLong : .tooLarge
            text = []
            return
        }
        text.append(contentsOf: run)
    }

    /// Keeps one byte of text, unless a limit has been passed.
    private mutating func take(_ byte: UInt8) {
        // A line's length counts its text, not its ending; a bare LF ends a line here too.
        if byte == lf { lineBytes = 0 } else if byte != cr { lineBytes += 1 }
        guard problem == nil else { return }
        if lineBytes + 2 > maxLineBytes {
            problem = .lineTooLong
        } else if text.count >= maxBytes {
            problem = .tooLarge
        }
        if problem != nil {
            text = []
            return
        }
        text.append(byte)
    }
}

let cr: UInt8 = 13
let lf: UInt8 = 10
let dot: UInt8 = 46
