private import CLibevent

/// How every connection writes, HTTP and SMTP alike: straight to the socket while libevent
/// holds nothing ahead (a whole answer as a rule, in one system call and with no copy into
/// libevent's buffer or wait for the next turn of the loop), the rest behind in the
/// bufferevent's output, which libevent writes as the socket takes more.
struct SocketWriter {
    let bufferevent: OpaquePointer
    /// The bufferevent's socket, when its owner already knows it: asking libevent takes the
    /// bufferevent's lock and a call through its table, on every answer.
    private let socket: Socket?

    init(_ bufferevent: OpaquePointer, socket: Socket? = nil) {
        self.bufferevent = bufferevent
        self.socket = socket
    }

    /// Bytes waiting in libevent's output.
    var queued: Int { evbuffer_get_length(bufferevent_get_output(bufferevent)) }

    /// Sends `head` and `body` to the socket at once when nothing is queued ahead, and queues
    /// what it did not take. `file`, when given, holds the same bytes and is what is sent.
    func write(_ head: [UInt8], _ body: [UInt8] = [], file: AnswerFile? = nil) {
        let sent = file.map(sendNow) ?? sendNow(head, body)
        if sent < head.count { queue(head, from: sent) }
        let bodySent = max(sent - head.count, 0)
        if bodySent < body.count { queue(body, from: bodySent) }
    }

    /// Sends what the socket takes at once, if nothing is queued ahead: how many bytes it took.
    func sendNow(_ head: [UInt8], _ body: [UInt8] = []) -> Int {
        guard queued == 0 else { return 0 }
        return (socket ?? Socket(bufferevent_getfd(bufferevent))).sendNow(head, body)
    }

    /// Sends `file` at once, if nothing is queued ahead: how many bytes the socket took.
    func sendNow(_ file: AnswerFile) -> Int {
        guard queued == 0 else { return 0 }
        return (socket ?? Socket(bufferevent_getfd(bufferevent))).sendNow(file)
    }

    /// Queues `bytes` from `start` on. A large rest is queued by reference: libevent writes
    /// from the array's own storage, so a slow reader of a big page holds no copy of it.
    func queue(_ bytes: [UInt8], from start: Int = 0) {
        let output = bufferevent_get_output(bufferevent)
        let rest = bytes.count - start
        guard rest >= Self.referenceThreshold else {
            bytes.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + start, rest) }
            return
        }
        // The holder keeps the array's storage alive and never writes to it, so the address
        // taken here stays valid until libevent has written the bytes and calls back.
        let holder = Unmanaged.passRetained(BytesHolder(bytes))
        let address = bytes.withUnsafeBytes { $0.baseAddress! + start }
        let added = evbuffer_add_reference(output, address, rest, { _, _, holder in
            guard let holder else { return }
            Unmanaged<BytesHolder>.fromOpaque(holder).release()
        }, holder.toOpaque())
        if added != 0 {
            holder.release()
            bytes.withUnsafeBytes { _ = evbuffer_add(output, $0.baseAddress! + start, rest) }
        }
    }

    /// Below this, copying the rest of a body is cheaper than tracking a reference to it.
    static let referenceThreshold = 16 * 1_024
}

/// Keeps bytes alive while libevent still has to write them.
private final class BytesHolder {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}
