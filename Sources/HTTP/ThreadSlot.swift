#if canImport(Glibc)
import Glibc
#endif

/// One object of type `T` for each thread that asks, made on its first use and let go when the
/// thread ends: for memos that a thread reads and writes without a lock, where a shared one's
/// lock would move a cache line between cores on every request.
///
/// Each slot takes one of the process's thread-specific keys, so slots are made once, as
/// static constants, never per instance.
public final class ThreadSlot<T: AnyObject>: Sendable {
    private let key: pthread_key_t?

    public init() {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { held in
            guard let held else { return }
            Unmanaged<AnyObject>.fromOpaque(held).release()
        }
        self.key = made == 0 ? key : nil
    }

    /// This thread's object, made by `make` the first time; nil only when the system has no key
    /// to give.
    @inlinable
    public func object(orMake make: () -> T) -> T? {
        if let held = held { return Unmanaged<T>.fromOpaque(held).takeUnretainedValue() }
        return keep(make())
    }

    @usableFromInline
    var held: UnsafeMutableRawPointer? {
        guard let key else { return nil }
        return pthread_getspecific(key)
    }

    @usableFromInline
    func keep(_ object: T) -> T? {
        guard let key else { return nil }
        let held = Unmanaged<AnyObject>.passRetained(object)
        guard pthread_setspecific(key, held.toOpaque()) == 0 else {
            held.release()
            return nil
        }
        return object
    }
}
