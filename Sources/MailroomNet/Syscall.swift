import Glibc

/// A system call that failed, with the `errno` it left.
public struct SystemCallError: Error, Sendable {
    public let code: Int32

    /// What the system says the code means (`strerror`).
    public var reason: String { String(cString: strerror(code)) }
}

/// The one funnel for system calls on sockets, in both directions and for every protocol: a
/// call that a signal interrupted is made again, one that would block a non-blocking socket
/// answers nil, and any other failure is thrown with its errno.
enum Syscall {
    /// Runs `body` until it is not interrupted: its result, nil for `EAGAIN`, or the error.
    /// `retryingInterrupts` is false for `connect`, which goes on in the background after an
    /// `EINTR` and must not be started twice.
    static func run<Result: BinaryInteger>(
        retryingInterrupts: Bool = true, _ body: () -> Result
    ) throws(SystemCallError) -> Result? {
        while true {
            let result = body()
            guard result < 0 else { return result }
            let code = errno
            if code == EINTR && retryingInterrupts { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemCallError(code: code)
        }
    }

    /// Closes `descriptor` once. Never retried: Linux has released the descriptor even when
    /// `close` reports `EINTR`, and a second call could close one another thread just opened.
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }
}
