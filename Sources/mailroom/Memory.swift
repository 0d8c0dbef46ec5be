import CMalloc

/// The server process's memory settings, so that memory goes back to the system once pages are sent.
///
/// A big page (3 MB at 5,000 rows) is built in heap memory that malloc then keeps for the next
/// one: reusing it is far cheaper than fresh memory from the system each time, which the kernel
/// must zero, map and unmap; but what a burst of big pages leaves must not stay in the RSS.
enum Memory {
    /// glibc gives each thread that allocates its own arena (up to 8 per core; the post workers
    /// alone are up to 64 threads) and keeps what is freed in each: two arenas are plenty here.
    static func limitArenas() {
        mallopt(M_ARENA_MAX, 2)
    }

    /// For `mailroom import`: blocks of 1 MiB and more are mapped for themselves and unmapped
    /// when freed; smaller ones (a message of 100 KB, its text) come from the heap. A lower
    /// threshold would make the reading and storing threads queue on the process's memory-map
    /// lock at each mmap and munmap. The heap stays small because little is in flight (16 MiB
    /// queued) and what stored messages took is handed back every 16 MiB (`handBackUnused`).
    /// A fixed threshold also stops glibc from raising it after the first large frees, and
    /// fixing it fixes the trim threshold too (128 KiB unless set), which would hand the heap's
    /// top back and take it again with brk at nearly every free; at 8 MiB that happens only when
    /// that much is free at the top.
    static func mapLargeBlocks() {
        mallopt(M_MMAP_THRESHOLD, 1_024 * 1_024)
        mallopt(M_TRIM_THRESHOLD, 8 * 1_024 * 1_024)
    }

    /// Hands back what malloc holds but nothing uses (run once a second, between requests).
    static func handBackUnused() {
        malloc_trim(0)
    }
}
