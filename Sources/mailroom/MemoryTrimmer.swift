import CMalloc
import Glibc

/// Hands memory that malloc holds but nothing uses back to the system, once a second.
///
/// A big page (3 MB at 5,000 rows) is built in heap memory that malloc then keeps for the next
/// one: building pages there costs half the CPU of fresh memory from the system each time (which
/// the kernel must zero, map and unmap), but without trimming, a burst of big pages at once
/// would stay in the process's RSS for good.
enum MemoryTrimmer {
    static func start() {
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { _ in
            while true {
                sleep(1)
                malloc_trim(0)
            }
        }, nil)
        if status == 0 { pthread_detach(thread) }
    }
}
