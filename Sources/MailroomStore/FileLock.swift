#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on the database file, held while a store is open, so that a second
/// Mailroom on the same file stops at once. SQLite's own locks are `fcntl` locks, which Linux
/// keeps apart from `flock`, so the two never meet, and readers on other connections still read.
final class FileLock {
    private let descriptor: Int32

    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)) + ".")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            close(descriptor)
            if number == EWOULDBLOCK { throw .locked(path: path) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(number)) + ".")
        }
        self.descriptor = descriptor
    }

    deinit {
        // Closing the descriptor releases the lock.
        close(descriptor)
    }
}
