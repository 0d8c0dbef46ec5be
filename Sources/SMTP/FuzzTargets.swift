/// The session driven by one input, in `pieces` chunks: for the fuzzer (`make fuzz`) and the
/// seeded random-input test. Anything but a crash or a broken promise is a pass.
public enum FuzzTargets {
    public static func run(_ bytes: [UInt8], pieces: Int = 1) {
        let whole = transcript(bytes, pieces: pieces)
        // However the bytes arrive, the session says and keeps the same: a byte at a time too.
        if bytes.count <= 4_096 {
            precondition(transcript(bytes, pieces: bytes.count) == whole, "the outcome depends on how the bytes arrive")
        }
    }

    /// Every reply's wire form and every message's text, in order.
    private static func transcript(_ bytes: [UInt8], pieces: Int) -> [[UInt8]] {
        var said: [[UInt8]] = []
        let limits = SMTPLimits(maxCommandLineBytes: 64, maxTextLineBytes: 32, maxMessageBytes: 64, maxRecipients: 3)
        var session = Session(options: SessionOptions(
            hostname: "fuzz.test", limits: limits, canStartTLS: true, authentication: .acceptAny))
        let size = max(1, bytes.count / max(pieces, 1))
        var offset = 0
        var steps = 0
        var closed = false
        while offset < bytes.count, !closed {
            let end = min(offset + size, bytes.count)
            session.receive(bytes[offset..<end])
            offset = end
            loop: while true {
                steps += 1
                precondition(steps <= 4 * bytes.count + 16, "the session went round without reading")
                switch session.next() {
                case .reply(let reply):
                    check(reply)
                    said.append(reply.bytes)
                case .startTLS(let reply):
                    // What arrives next is a TLS handshake, which a plain session never reads.
                    check(reply)
                    said.append(reply.bytes)
                    closed = true
                    break loop
                case .deliver(let message):
                    precondition(message.text.count <= limits.maxMessageBytes, "a message over the size was handed out")
                    precondition((1...limits.maxRecipients).contains(message.envelope.recipients.count),
                                 "\(message.envelope.recipients.count) recipients")
                    said.append(message.text)
                    let reply = session.delivered(as: "1")
                    check(reply)
                    said.append(reply.bytes)
                case .close(let reply):
                    check(reply)
                    said.append(reply.bytes)
                    closed = true
                    break loop
                case .needMore:
                    break loop
                }
            }
        }
        return said
    }

    /// A reply is a code from 2xx to 5xx and lines of printable ASCII, each ended by CRLF.
    private static func check(_ reply: Reply) {
        precondition((200...599).contains(reply.code), "reply code \(reply.code)")
        let wire = reply.bytes
        precondition(wire.count >= 5 && wire.suffix(2) == [13, 10], "a reply must end with CRLF")
        var previous: UInt8 = 0
        for byte in wire {
            precondition(byte == 13 || byte == 10 || (32...126).contains(byte), "a reply carried byte \(byte)")
            precondition(byte != 10 || previous == 13, "a bare LF in a reply")
            previous = byte
        }
    }
}
