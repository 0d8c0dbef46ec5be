private import CLinux
import Glibc

/// A repeated answer's bytes, head and body, in a file in memory of their own, sent with
/// `sendfile`: the kernel hands the file's pages to the socket, where `sendmsg` first copies
/// the bytes into the socket's buffer. For a 38 KiB page that copy is a good part of what an
/// answer costs the server.
///
/// The file is filled once, here, and never written again (no one else has its descriptor), so
/// pages the kernel still holds for a slow client keep the bytes they were sent with. It is
/// closed when its last holder lets it go; pages still on their way stay until sent.
final class AnswerFile {
    let descriptor: Int32
    /// The head's length and the body's together: the file's size.
    let count: Int

    /// Nil when the file cannot be made (no memory, no descriptor): the answer is then sent
    /// from memory as before.
    init?(head: [UInt8], body: [UInt8]) {
        let descriptor = mailroom_memfd_create("mailroom-answer")
        guard descriptor >= 0 else { return nil }
        guard Self.writeAll(head, to: descriptor), Self.writeAll(body, to: descriptor) else {
            Syscall.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        count = head.count + body.count
    }

    deinit { Syscall.close(descriptor) }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                done += written
            }
            return true
        }
    }

    /// Below this, copying a body costs less than handing pages to the socket.
    static let threshold = 16 * 1_024
}
