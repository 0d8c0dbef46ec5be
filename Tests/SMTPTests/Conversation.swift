@testable import SMTP

/// A session driven as a server drives it: bytes in, then every step until it needs more.
/// Messages are "stored" at once, named 1, 2, 3...
struct Conversation {
    var session: Session
    var replies: [Reply] = []
    var messages: [ReceivedMessage] = []
    var startedTLS = false
    var closed = false

    init(_ options: SessionOptions = SessionOptions(hostname: "mx.test"), peer: String = "") {
        session = Session(options: options, peer: peer)
    }

    /// Sends `text` in one piece and returns the replies it drew.
    @discardableResult
    mutating func send(_ text: String) -> [Reply] {
        send(Array(text.utf8))
    }

    @discardableResult
    mutating func send(_ bytes: [UInt8], inPiecesOf size: Int? = nil) -> [Reply] {
        let before = replies.count
        var offset = 0
        repeat {
            let end = size.map { min(offset + $0, bytes.count) } ?? bytes.count
            session.receive(bytes[offset..<end])
            offset = end
            drain()
        } while offset < bytes.count
        return Array(replies[before...])
    }

    private mutating func drain() {
        while true {
            switch session.next() {
            case .reply(let reply): replies.append(reply)
            case .deliver(let message):
                messages.append(message)
                replies.append(session.delivered(as: "message \(messages.count)"))
            case .startTLS(let reply):
                replies.append(reply)
                startedTLS = true
            case .close(let reply):
                replies.append(reply)
                closed = true
                return
            case .needMore:
                return
            }
        }
    }

    /// EHLO, MAIL and one RCPT, answered.
    mutating func open(from sender: String = "scanner@office.test", to recipient: String = "inbox@mailroom.test") {
        send("EHLO client.test\r\nMAIL FROM:<\(sender)>\r\nRCPT TO:<\(recipient)>\r\n")
    }
}

extension [Reply] {
    var codes: [Int] { map(\.code) }
}
