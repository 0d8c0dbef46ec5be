import Glibc

/// A connected socket as the loops use it: non-blocking calls, each through `Syscall`.
struct Socket {
    let descriptor: Int32

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// One `sendmsg` of `head` and `body` without waiting: how many bytes the socket took (0 if
    /// it took none or failed: the bytes then queued meet the same failure in libevent, which
    /// reports it to the connection).
    func sendNow(_ head: [UInt8], _ body: [UInt8] = []) -> Int {
        guard descriptor >= 0 else { return 0 }
        return head.withUnsafeBytes { head in
            body.withUnsafeBytes { body in
                withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { parts in
                    parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count)
                    parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
                    var message = msghdr()
                    message.msg_iov = parts.baseAddress
                    message.msg_iovlen = body.isEmpty ? 1 : 2
                    // MSG_NOSIGNAL: a client that has gone is an error here, not SIGPIPE.
                    let written = try? Syscall.run { sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                    return written.flatMap { $0 } ?? 0
                }
            }
        }
    }

    /// One `sendfile` of all of `file` without waiting: how many bytes the socket took (0 as
    /// with `sendNow`). The process ignores SIGPIPE (mailroom's main), which `sendfile` would
    /// raise for a client that has gone.
    func sendNow(_ file: AnswerFile) -> Int {
        guard descriptor >= 0 else { return 0 }
        var offset: off_t = 0
        let written = try? Syscall.run { sendfile(descriptor, file.descriptor, &offset, file.count) }
        return written.flatMap { $0 } ?? 0
    }

    /// Reads what has arrived into `buffer` without waiting: the count, 0 when the client has
    /// closed its side, nil when nothing is there yet.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int? {
        try Syscall.run { recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
    }

    /// Whether bytes have arrived that nobody has read yet (they stay to be read).
    var hasUnreadBytes: Bool {
        guard descriptor >= 0 else { return false }
        var byte: UInt8 = 0
        let peeked = try? Syscall.run { recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) }
        return (peeked.flatMap { $0 } ?? 0) > 0
    }

    func close() {
        Syscall.close(descriptor)
    }
}
