import Dispatch
import Glibc
import MailroomCore
@testable import MailroomStore
import Synchronization
import Testing

/// `Store.backup` and `Store.check`, which `mailroom backup` and `mailroom check` run beside a
/// Mailroom that is serving the file; and the copy made before a migration.
@Suite struct MaintenanceTests {
    private func add(_ store: Store, _ subject: String) throws -> MessageID {
        try store.write { transaction in
            try transaction.add(Draft(subject: subject, body: "Body of \(subject)"), to: .inbox, at: 1_700_000_000).id
        }
    }

    /// In one step, and (as `mailroom backup` makes it) a few pages at a time with commits made
    /// between the steps: the copy is the file as of one commit either way, never restarted.
    @Test(arguments: [false, true])
    func aBackupUnderEightWritersHoldsEveryCommitMadeBeforeItBegan(stepped: Bool) throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            for number in 1...200 { _ = try add(store, "Before \(number)") }
            let acknowledged = Mutex<[MessageID]>([])
            let stop = Atomic<Bool>(false)
            let writers = DispatchGroup()
            for writer in 0..<8 {
                // A queue of its own is an overcommitting one: a thread of its own, however busy the pool.
                DispatchQueue(label: "writer \(writer)").async(group: writers) {
                    var number = 0
                    while !stop.load(ordering: .relaxed) {
                        number += 1
                        guard let id = try? add(store, "Writer \(writer) number \(number)") else { continue }
                        acknowledged.withLock { $0.append(id) }
                    }
                }
            }
            // Let the writers get going, then take what they had committed when the backup began.
            while acknowledged.withLock({ $0.count }) < 100 { sched_yield() }
            let before = Set(acknowledged.withLock { $0 })
            let copy = path + ".backup"
            defer { removeDatabase(at: copy) }
            var steps = 0
            var stepsWithACommit = 0
            if stepped {
                try Store.backup(path: path, to: copy, stepPages: 4) {
                    // Each step waits (a while at most) for a commit made after the previous one.
                    steps += 1
                    let seen = acknowledged.withLock { $0.count }
                    var spins = 0
                    while acknowledged.withLock({ $0.count }) == seen && spins < 1_000_000 {
                        sched_yield()
                        spins += 1
                    }
                    if acknowledged.withLock({ $0.count }) > seen { stepsWithACommit += 1 }
                }
                #expect(steps > 5, "the copy was made in steps")
                #expect(stepsWithACommit * 2 > steps, "\(stepsWithACommit) of \(steps) steps saw a commit")
            } else {
                try Store.backup(path: path, to: copy)
                // In one step a file this small can be copied inside one commit, so this waits
                // (a while at most) for the writers' next commit rather than expecting one within
                // the copy; the steps above show commits made between steps.
                var spins = 0
                while acknowledged.withLock({ $0.count }) == before.count && spins < 1_000_000 {
                    sched_yield()
                    spins += 1
                }
            }
            let duringBackup = acknowledged.withLock { $0.count } - before.count
            stop.store(true, ordering: .relaxed)
            writers.wait()

            #expect(duringBackup > 0, "the writers went on committing once the copy had begun")
            #expect(try Store.check(path: copy) == "ok")
            let backup = try Store(path: copy)
            defer { backup.close() }
            let ids = Set(try backup.library()[.inbox]?.ids ?? [])
            #expect(before.isSubset(of: ids), "\(before.subtracting(ids).count) acknowledged messages are missing")
            #expect(ids.count >= 200 + before.count)
            #expect(try Database(path: copy).userVersion == Schema.currentVersion)
        }
    }

    @Test func aBackupNeverWritesOverAFile() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            store.close()
            let existing = path + ".taken"
            let file = try #require(fopen(existing, "w"))
            fputs("keep me", file)
            fclose(file)
            defer { unlink(existing) }
            #expect(throws: StoreError.self) { try Store.backup(path: path, to: existing) }
            #expect(throws: StoreError.self) { try Store.backup(path: path + ".nothing-here", to: path + ".out") }
            var info = stat()
            #expect(stat(existing, &info) == 0 && info.st_size == 7)
        }
    }

    @Test func checkFindsCountsOutOfStepAndAMessageWithoutItsBody() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            _ = try add(store, "One")
            let two = try add(store, "Two")
            #expect(try Store.check(path: path) == "ok")
            store.close()
            let database = try Database(path: path)
            try database.execute("UPDATE mailboxes SET total = total + 5 WHERE id = \(MailboxID.inbox.rawValue)")
            try database.execute("DELETE FROM bodies WHERE id = \(two.rawValue)")
            let report = try Store.check(path: path)
            #expect(report.contains("the counts of Inbox are wrong"))
            #expect(report.contains("message \(two.rawValue) has no body"))
        }
    }

    @Test func checkAsksForAnOlderFileToBeOpenedFirst() throws {
        try withTemporaryPath { path in
            let database = try Database(path: path)
            try database.execute("CREATE TABLE t (x); PRAGMA user_version = 2")
            #expect(throws: StoreError.self) { try Store.check(path: path) }
            try database.execute("PRAGMA user_version = \(Schema.currentVersion + 1)")
            #expect(throws: StoreError.self) { try Store.check(path: path) }
        }
    }

    @Test func aMigrationIsPrecededByACopyOfTheFileAsItWas() throws {
        let fixture = MigrationTests.fixtures + "schema-3.sqlite"
        let bytes = try #require(contents(of: fixture), "the fixture is missing at \(fixture)")
        try withTemporaryPath { path in
            let file = try #require(fopen(path, "wb"))
            _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            let store = try Store(path: path, backingUpBeforeMigrating: true)
            defer { store.close() }
            let copy = try #require(store.migrationBackup)
            defer { removeDatabase(at: copy) }
            #expect(copy == path + ".schema-3.backup")
            #expect(try Database(path: copy).userVersion == 3)
            #expect(store.migratedFrom == 3)
            // A file already up to date is not copied again.
            store.close()
            let again = try Store(path: path, backingUpBeforeMigrating: true)
            defer { again.close() }
            #expect(again.migrationBackup == nil)
        }
    }
}
