import Glibc

/// Runs `body` with a database path under /tmp that no other test uses, then deletes the file
/// and any side files SQLite left beside it.
func withTemporaryPath(_ body: (String) throws -> Void) rethrows {
    let path = "/tmp/mailroom-store-tests-\(getpid())-\(randomHex()).sqlite"
    defer { removeDatabase(at: path) }
    try body(path)
}

/// A path whose folder does not exist.
func pathInMissingFolder() -> String {
    "/tmp/mailroom-store-tests-missing-\(randomHex())/mail.sqlite"
}

func removeDatabase(at path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        unlink(path + suffix)
    }
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The file's bytes, or nil when it cannot be read.
func contents(of path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        bytes += chunk[..<count]
        if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
    }
}

func write(_ bytes: [UInt8], to path: String) {
    guard let file = fopen(path, "wb") else { return }
    _ = fwrite(bytes, 1, bytes.count, file)
    fclose(file)
}

private func randomHex() -> String {
    String(UInt64.random(in: .min ... .max), radix: 16)
}
