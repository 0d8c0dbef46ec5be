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

    /// For `mailroom import`: blocks of 96 KiB and more (a message, its text) are mapped for
    /// themselves and unmapped when freed, so a million of them leave no holes in the heap.
    /// A fixed threshold also stops glibc from raising it after the first large frees.
    /// Fixing it also fixes the trim threshold (128 KiB unless set): the heap's top would then
    /// be handed back and taken again with brk at nearly every free, an eighth of the import's
    /// CPU. What is unused goes back once per commit instead (`handBackUnused`).
    static func mapLargeBlocks() {
        mallopt(M_MMAP_THRESHOLD, 96 * 1_024)
        mallopt(M_TRIM_THRESHOLD, 64 * 1_024 * 1_024)
    }

    /// Hands back what malloc holds but nothing uses (run once a second, between requests).
    static func handBackUnused() {
        malloc_trim(0)
    }
}
