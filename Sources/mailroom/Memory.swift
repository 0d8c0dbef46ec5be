import CMalloc

/// The server process's memory settings, so that memory goes back to the system once pages are sent.
///
/// A big page (3 MB at 5,000 rows) is built in heap memory that malloc then keeps for the next
/// one: building pages there costs about half the CPU of fresh memory from the system each time
/// (which the kernel must zero, map and unmap: 5.9 ms against 3.5 ms for 5,000 rows, measured
/// with a fixed mmap threshold), but what a burst of big pages leaves must not stay in the RSS.
enum Memory {
    /// glibc gives each thread that allocates its own arena (up to 8 per core; the post workers
    /// alone are up to 64 threads) and keeps what is freed in each: two arenas are plenty here.
    static func limitArenas() {
        mallopt(M_ARENA_MAX, 2)
    }

    /// For `mailroom import`: blocks of 1 MiB and more are mapped for themselves and unmapped
    /// when freed; smaller ones (a message of 100 KB, its text) come from the heap. Mapping
    /// every block of 96 KiB and more, as before, kept the heap tidy but made the two threads
    /// queue on the process's memory-map lock at each mmap and munmap (seen with perf's
    /// sched_switch: a third of the reading thread's waits), for about a tenth of the import's
    /// time. The heap stays small because little is in flight (16 MiB queued) and what stored
    /// messages took is handed back every 16 MiB (`handBackUnused`).
    /// A fixed threshold also stops glibc from raising it after the first large frees, and
    /// fixing it fixes the trim threshold too (128 KiB unless set): the heap's top would then be
    /// handed back and taken again with brk at nearly every free, an eighth of the import's
    /// CPU; at 8 MiB it happens only when that much is free at the top.
    static func mapLargeBlocks() {
        mallopt(M_MMAP_THRESHOLD, 1_024 * 1_024)
        mallopt(M_TRIM_THRESHOLD, 8 * 1_024 * 1_024)
    }

    /// Hands back what malloc holds but nothing uses (run once a second, between requests).
    static func handBackUnused() {
        malloc_trim(0)
    }
}
