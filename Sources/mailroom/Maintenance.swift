import Glibc
import MailroomStore

/// `mailroom backup` and `mailroom check`: for a database that a running Mailroom may be
/// serving. Neither takes Mailroom's lock on the file or changes it.
enum Maintenance {
    static let usage = """
        Usage: mailroom backup [--db PATH] OUT   copy a live database (as of one commit) to a new file OUT
               mailroom check [--db PATH]        check a database: SQLite's integrity check and Mailroom's own
        """

    /// `--db PATH` (default mailroom.sqlite) and the other arguments, in order; nil on a bad flag.
    private static func parse(_ arguments: [String]) -> (database: String, rest: [String])? {
        var database = "mailroom.sqlite"
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--db" {
                guard index + 1 < arguments.count else { return nil }
                database = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("-") { return nil }
            rest.append(argument)
            index += 1
        }
        return (database, rest)
    }

    /// Exit status: 0 copied, 1 could not copy, 64 bad usage.
    static func backup(_ arguments: [String]) -> Int32 {
        guard let (database, rest) = parse(arguments), rest.count == 1 else {
            Console.error(usage)
            return 64
        }
        let started = Clock.seconds()
        // The copy is made beside a Mailroom that is serving: it gives way on the CPU, and it
        // paces itself on the disk (see `Pacer`).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        let pacer = Pacer(path: rest[0])
        do {
            try Store.backup(path: database, to: rest[0], afterStep: pacer.afterStep)
        } catch {
            Console.error("mailroom backup: \(error)")
            return 1
        }
        var info = stat()
        let size = stat(rest[0], &info) == 0 ? Int(info.st_size) : 0
        let seconds = Clock.seconds() - started
        Console.out("mailroom backup: \(database) copied to \(rest[0]) (\(size / 1_048_576) MiB in "
            + "\(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s)")
        return 0
    }

    /// Exit status: 0 when everything is in order, 1 when something is not (each problem on a
    /// line of its own), 64 bad usage.
    static func check(_ arguments: [String]) -> Int32 {
        guard let (database, rest) = parse(arguments), rest.isEmpty else {
            Console.error(usage)
            return 64
        }
        do {
            let report = try Store.check(path: database)
            guard report == "ok" else {
                Console.error("mailroom check: \(database) has problems:\n\(report)")
                return 1
            }
            Console.out("mailroom check: \(database) is in order")
            return 0
        } catch {
            Console.error("mailroom check: \(error)")
            return 1
        }
    }
}

/// Paces a backup made beside a serving Mailroom: after each 4 MiB step, what the step copied
/// is written to the disk (the copy waits for that) and dropped from the page cache. Left to
/// itself, a multi-gigabyte copy fills the kernel's dirty pages until every process that writes
/// (the server's commits among them) waits seconds for the flush; flushed step by step, a
/// commit's sync waits behind one step's 4 MiB at most, and the server's pages stay cached.
/// Beside 64 posting clients on the million-message file, the posts' p99 is 9–10 ms with 4 MiB
/// steps, 11–15 ms with 8 MiB steps at the same copy speed, and 8–10 ms with 2 MiB steps but a
/// copy a third slower.
private final class Pacer {
    private let path: String
    private var descriptor: Int32 = -1

    init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func afterStep() {
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return }
        fdatasync(descriptor)
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
    }
}

private enum Clock {
    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
