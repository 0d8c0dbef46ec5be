private import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// The writer's log (WAL) written a commit at a time.
///
/// SQLite appends each frame of a commit with two writes, its 24-byte header and then its page:
/// at intake about a dozen system calls a message. This VFS, laid over the default one and used
/// by the writer's connection alone, gathers what SQLite appends to the log and writes it in
/// 64 KiB pieces when SQLite syncs the log, reads it, writes anywhere else in it, or asks its size.
///
/// Nothing held here is ever looked for elsewhere: with `synchronous = FULL` (the writer's
/// setting, made where `Store` opens it; at any lower level this VFS must not be used) SQLite
/// syncs the log before it makes a commit visible to other connections, and frames spilled
/// before a commit are visible to no one but the writer, whose reads flush first. A commit is as durable as before: it returns only
/// after the sync, which writes, then syncs. Bytes a failed write did not take stay held, and
/// every later sync tries them again, so a sync never succeeds over a hole in the log; after a
/// rollback, what is held belongs to frames SQLite has let go, and is dropped (`dropHeld`).
enum LogBuffering {
    static let name = "mailroom-log-buffering"

    /// Registers the VFS once: false when it could not be, and connections then open the
    /// default one.
    static let isRegistered: Bool = {
        _ = Database.isConfigured
        guard let base = underlyingVFS else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.szOsFile = Int32(MemoryLayout<BufferedFile>.stride) + base.pointee.szOsFile
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pNext = nil
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            guard let file, let base = underlyingVFS, let open = base.pointee.xOpen else { return SQLITE_MISUSE }
            let state = buffered(file)
            state.initialize(to: BufferedFile(base: sqlite3_file(pMethods: nil), buffer: nil, start: 0, count: 0))
            let real = realFile(file)
            real.pointee.pMethods = nil
            let code = open(base, name, real, flags, outFlags)
            guard code == SQLITE_OK else {
                // Ours is not open (no methods), so SQLite will not close it: the real one is closed here.
                if let close = real.pointee.pMethods?.pointee.xClose { _ = close(real) }
                return code
            }
            if flags & SQLITE_OPEN_WAL != 0 {
                state.pointee.buffer = malloc(capacity)?.assumingMemoryBound(to: UInt8.self)
            }
            state.pointee.base.pMethods = UnsafePointer(methods)
            return SQLITE_OK
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    /// Forgets what the log of `connection` holds: called after its transaction is rolled back,
    /// when every frame not yet written belongs to that transaction, which SQLite will neither
    /// read again nor publish. Written later, after the write lock is gone, they could land on
    /// frames another process has committed since.
    static func dropHeld(of connection: OpaquePointer) {
        if let file = log(of: connection) { buffered(file).pointee.count = 0 }
    }

    /// How many bytes the log of `connection` holds unwritten, for tests.
    static func heldBytes(of connection: OpaquePointer) -> Int {
        log(of: connection).map { buffered($0).pointee.count } ?? 0
    }

    /// For tests: the next `count` writes of what the log of `connection` holds fail with
    /// SQLITE_FULL, as on a full disk.
    static func failHeldWrites(of connection: OpaquePointer, count: Int) {
        if let file = log(of: connection) { buffered(file).pointee.failingWrites = count }
    }

    /// The log file of `connection`, if this VFS opened it.
    private static func log(of connection: OpaquePointer) -> UnsafeMutablePointer<sqlite3_file>? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_JOURNAL_POINTER, &file) == SQLITE_OK, let file,
              file.pointee.pMethods == UnsafePointer(methods) else { return nil }
        return file
    }

    /// At most this much is held: a longer run of appends is written as it fills.
    static let capacity = 1 << 20
    /// How much one write to the real file carries.
    static let piece = 64 << 10
}

/// SQLite's default VFS, under this one.
nonisolated(unsafe) private let underlyingVFS: UnsafeMutablePointer<sqlite3_vfs>? = sqlite3_vfs_find(nil)

/// An open file of this VFS: SQLite's `sqlite3_file` first (its methods are those below), then
/// what is held back; the default VFS's own file object follows in the same allocation.
private struct BufferedFile {
    var base: sqlite3_file
    /// Set for a log only: room for `LogBuffering.capacity` bytes.
    var buffer: UnsafeMutablePointer<UInt8>?
    /// Where in the file the held bytes go, and how many there are.
    var start: sqlite3_int64
    var count: Int
    /// For tests: how many of the next writes of held bytes fail, as on a full disk.
    var failingWrites = 0
}

private func buffered(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<BufferedFile> {
    UnsafeMutableRawPointer(file).assumingMemoryBound(to: BufferedFile.self)
}

private func realFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
    (UnsafeMutableRawPointer(file) + MemoryLayout<BufferedFile>.stride).assumingMemoryBound(to: sqlite3_file.self)
}

private func realMethods(_ file: UnsafeMutablePointer<sqlite3_file>) -> sqlite3_io_methods {
    // Set whenever ours are: the real file opened, or ours would have no methods.
    realFile(file).pointee.pMethods.unsafelyUnwrapped.pointee
}

/// Writes what is held: SQLITE_OK, or the error of the write that failed. What that write and
/// those after it did not take stays held, where it was, for the next flush: SQLite was told
/// these bytes were written, and a statement that fails on a read does not undo the frames it
/// did not write, so they may still be part of a commit.
private func flush(_ file: UnsafeMutablePointer<sqlite3_file>) -> Int32 {
    let state = buffered(file)
    guard state.pointee.count > 0, let buffer = state.pointee.buffer else { return SQLITE_OK }
    let count = state.pointee.count
    guard let write = realMethods(file).xWrite else { return SQLITE_IOERR }
    // The default VFS writes less than 128 KiB a call (it masks larger counts): so do we.
    var written = 0
    while written < count {
        let piece = min(LogBuffering.piece, count - written)
        let code: Int32
        if state.pointee.failingWrites > 0 {
            state.pointee.failingWrites -= 1
            code = SQLITE_FULL
        } else {
            code = write(realFile(file), buffer + written, Int32(piece), state.pointee.start + sqlite3_int64(written))
        }
        guard code == SQLITE_OK else {
            memmove(buffer, buffer + written, count - written)
            state.pointee.start += sqlite3_int64(written)
            state.pointee.count = count - written
            return code
        }
        written += piece
    }
    state.pointee.count = 0
    return SQLITE_OK
}

/// The methods of every file of this VFS: each passes the call on to the real file, after
/// writing what is held wherever the order of writes or what the file holds could show.
nonisolated(unsafe) private let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
    let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
    methods.initialize(to: sqlite3_io_methods())
    methods.pointee.iVersion = 3
    methods.pointee.xClose = { file in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        let closed = realMethods(file).xClose?(realFile(file)) ?? SQLITE_OK
        free(buffered(file).pointee.buffer)
        buffered(file).pointee.buffer = nil
        return flushed == SQLITE_OK ? closed : flushed
    }
    methods.pointee.xRead = { file, data, amount, offset in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        return realMethods(file).xRead?(realFile(file), data, amount, offset) ?? SQLITE_IOERR
    }
    methods.pointee.xWrite = { file, data, amount, offset in
        guard let file, let data else { return SQLITE_MISUSE }
        let state = buffered(file)
        let size = Int(amount)
        if let buffer = state.pointee.buffer, size >= 0 {
            let count = state.pointee.count
            // The next bytes after those held: appended.
            if count > 0 && offset == state.pointee.start + sqlite3_int64(count) && count + size <= LogBuffering.capacity {
                memcpy(buffer + count, data, size)
                state.pointee.count = count + size
                return SQLITE_OK
            }
            let flushed = flush(file)
            guard flushed == SQLITE_OK else { return flushed }
            if size < LogBuffering.capacity {
                memcpy(buffer, data, size)
                state.pointee.start = offset
                state.pointee.count = size
                return SQLITE_OK
            }
        }
        return realMethods(file).xWrite?(realFile(file), data, amount, offset) ?? SQLITE_IOERR
    }
    methods.pointee.xTruncate = { file, size in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        return realMethods(file).xTruncate?(realFile(file), size) ?? SQLITE_IOERR
    }
    methods.pointee.xSync = { file, flags in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        return realMethods(file).xSync?(realFile(file), flags) ?? SQLITE_IOERR
    }
    methods.pointee.xFileSize = { file, size in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        return realMethods(file).xFileSize?(realFile(file), size) ?? SQLITE_IOERR
    }
    methods.pointee.xLock = { file, level in
        guard let file else { return SQLITE_MISUSE }
        return realMethods(file).xLock?(realFile(file), level) ?? SQLITE_IOERR
    }
    methods.pointee.xUnlock = { file, level in
        guard let file else { return SQLITE_MISUSE }
        return realMethods(file).xUnlock?(realFile(file), level) ?? SQLITE_IOERR
    }
    methods.pointee.xCheckReservedLock = { file, result in
        guard let file else { return SQLITE_MISUSE }
        return realMethods(file).xCheckReservedLock?(realFile(file), result) ?? SQLITE_IOERR
    }
    methods.pointee.xFileControl = { file, operation, argument in
        guard let file else { return SQLITE_MISUSE }
        let flushed = flush(file)
        guard flushed == SQLITE_OK else { return flushed }
        return realMethods(file).xFileControl?(realFile(file), operation, argument) ?? SQLITE_NOTFOUND
    }
    methods.pointee.xSectorSize = { file in
        guard let file else { return 4_096 }
        return realMethods(file).xSectorSize?(realFile(file)) ?? 4_096
    }
    methods.pointee.xDeviceCharacteristics = { file in
        guard let file else { return 0 }
        return realMethods(file).xDeviceCharacteristics?(realFile(file)) ?? 0
    }
    methods.pointee.xShmMap = { file, region, size, extend, address in
        guard let file else { return SQLITE_MISUSE }
        let real = realMethods(file)
        guard real.iVersion >= 2, let map = real.xShmMap else { return SQLITE_IOERR }
        return map(realFile(file), region, size, extend, address)
    }
    methods.pointee.xShmLock = { file, offset, count, flags in
        guard let file else { return SQLITE_MISUSE }
        let real = realMethods(file)
        guard real.iVersion >= 2, let lock = real.xShmLock else { return SQLITE_IOERR }
        return lock(realFile(file), offset, count, flags)
    }
    methods.pointee.xShmBarrier = { file in
        guard let file else { return }
        let real = realMethods(file)
        guard real.iVersion >= 2, let barrier = real.xShmBarrier else { return }
        barrier(realFile(file))
    }
    methods.pointee.xShmUnmap = { file, delete in
        guard let file else { return SQLITE_MISUSE }
        let real = realMethods(file)
        guard real.iVersion >= 2, let unmap = real.xShmUnmap else { return SQLITE_OK }
        return unmap(realFile(file), delete)
    }
    methods.pointee.xFetch = { file, offset, amount, pointer in
        guard let file, let pointer else { return SQLITE_MISUSE }
        let real = realMethods(file)
        guard real.iVersion >= 3, let fetch = real.xFetch, flush(file) == SQLITE_OK else {
            // No mapping: SQLite reads instead.
            pointer.pointee = nil
            return SQLITE_OK
        }
        return fetch(realFile(file), offset, amount, pointer)
    }
    methods.pointee.xUnfetch = { file, offset, pointer in
        guard let file else { return SQLITE_MISUSE }
        let real = realMethods(file)
        guard real.iVersion >= 3, let unfetch = real.xUnfetch else { return SQLITE_OK }
        return unfetch(realFile(file), offset, pointer)
    }
    return methods
}()
