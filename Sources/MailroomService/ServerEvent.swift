/// One Server-Sent Event (the HTML standard's `text/event-stream`).
public struct ServerEvent: Sendable, Equatable {
    /// Increases from one event to the next: a client that reconnects names the last it saw
    /// (`Last-Event-ID`) and is sent what followed.
    public let id: Int64
    public let name: String
    /// One line: the hub's events carry JSON, which has no line breaks of its own.
    public let data: String

    public init(id: Int64, name: String, data: String) {
        self.id = id
        self.name = name
        self.data = data
    }

    /// The event on the wire. Each line of `data` (ended by LF, CR or CRLF, as the format reads
    /// them) goes on a `data:` line of its own, so no event can end early or forge another.
    public var bytes: [UInt8] {
        var out = Array("id: \(id)\nevent: \(name)\ndata: ".utf8)
        let text = Array(data.utf8)
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == 0x0D || byte == 0x0A {
                out += Array("\ndata: ".utf8)
                if byte == 0x0D && index + 1 < text.count && text[index + 1] == 0x0A { index += 1 }
            } else {
                out.append(byte)
            }
            index += 1
        }
        out += Array("\n\n".utf8)
        return out
    }
}
