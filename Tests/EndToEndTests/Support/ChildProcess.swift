import Dispatch
import Glibc
import Synchronization

/// A program started with `posix_spawn`, its output read through pipes, every wait bounded by a deadline.
final class ChildProcess {
    let pid: pid_t
    private(set) var standardOutput: [UInt8] = []
    private(set) var standardError: [UInt8] = []
    private var outputPipe: Int32
    private var errorPipe: Int32
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`, stdin from /dev/null, default signal handling and no blocked signals.
    init(executable: String, arguments: [String]) throws {
        var output: [Int32] = [0, 0]
        var error: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw TestFailure("pipe failed: \(Self.lastError)") }
        guard pipe(&error) == 0 else {
            close(output[0]); close(output[1])
            throw TestFailure("pipe failed: \(Self.lastError)")
        }
        // Programs that other tests start at the same time must not inherit these pipes, or
        // end-of-output would wait for them too. (pipe2 is not visible to Swift here.)
        for fd in output + error { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error[1], 2)

        // The test runner may block or ignore signals; the child must start with the defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(output[1])
        close(error[1])
        guard status == 0 else {
            close(output[0]); close(error[0])
            throw TestFailure("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.outputPipe = output[0]
        self.errorPipe = error[0]
    }

    deinit {
        // A test that failed half-way must not leave a server running.
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if outputPipe >= 0 { close(outputPipe) }
        if errorPipe >= 0 { close(errorPipe) }
    }

    var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
    var errorText: String { String(decoding: standardError, as: UTF8.self) }

    /// Reads standard output until a whole line satisfies `matches`, and returns that line.
    func waitForOutputLine(within seconds: Double, where matches: (String) -> Bool) throws -> String {
        let deadline = Self.now() + seconds
        while true {
            let lines = outputText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if let line = lines.first(where: { matches(String($0)) }) { return String(line) }
            guard outputPipe >= 0 || errorPipe >= 0 else {
                throw TestFailure("the program ended its output without the line; stdout: \(outputText) stderr: \(errorText)")
            }
            let remaining = deadline - Self.now()
            guard remaining > 0 else {
                throw TestFailure("no such line within \(seconds) s; stdout: \(outputText) stderr: \(errorText)")
            }
            try readAvailable(waitingAtMost: remaining)
        }
    }

    /// Waits until the whole output so far, as lines, satisfies `holds`, and returns them.
    func waitForOutputLines(within seconds: Double, until holds: ([String]) -> Bool) throws -> [String] {
        let deadline = Self.now() + seconds
        while true {
            let lines = outputText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if holds(lines) { return lines }
            guard outputPipe >= 0 || errorPipe >= 0 else {
                throw TestFailure("the program ended its output first; stdout: \(outputText) stderr: \(errorText)")
            }
            let remaining = deadline - Self.now()
            guard remaining > 0 else { throw TestFailure("not within \(seconds) s; stdout: \(outputText) stderr: \(errorText)") }
            try readAvailable(waitingAtMost: remaining)
        }
    }

    /// Reads whatever the program writes for `seconds`, then returns its standard output so far.
    func output(after seconds: Double) throws -> String {
        let deadline = Self.now() + seconds
        while outputPipe >= 0 || errorPipe >= 0 {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { break }
            try readAvailable(waitingAtMost: remaining)
        }
        return outputText
    }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the program to end, reading its output meanwhile, and returns its exit code.
    /// Throws if it is still running at the deadline (it is then killed) or was killed by a signal.
    func waitForExit(within seconds: Double) throws -> Int32 {
        let deadline = Self.now() + seconds
        // Draining the pipes first keeps the program from blocking on a full pipe while it exits.
        while outputPipe >= 0 || errorPipe >= 0 {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { return try killAfterTimeout(seconds) }
            try readAvailable(waitingAtMost: remaining)
        }
        guard let status = reap(waitingAtMost: max(deadline - Self.now(), 0.1)) else {
            throw TestFailure("the program did not exit within \(seconds) s; stdout: \(outputText) stderr: \(errorText)")
        }
        let signal = status & 0x7F
        guard signal == 0 else {
            throw TestFailure("the program was killed by signal \(signal); stderr: \(errorText)")
        }
        return (status >> 8) & 0xFF
    }

    // MARK: Private

    private func killAfterTimeout(_ seconds: Double) throws -> Int32 {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = status
        throw TestFailure("the program did not exit within \(seconds) s; stdout: \(outputText) stderr: \(errorText)")
    }

    /// `waitpid` on a helper thread, so the wait has a deadline; nil if it did not end in time
    /// (it has then been killed and reaped).
    private func reap(waitingAtMost seconds: Double) -> Int32? {
        let reaper = Reaper(pid: pid)
        // A thread of its own: Dispatch's pool may be busy with blocked tests and add a worker
        // only after about a second.
        var thread = pthread_t()
        let context = Unmanaged.passRetained(reaper).toOpaque()
        guard pthread_create(&thread, nil, { context in
            Unmanaged<Reaper>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<Reaper>.fromOpaque(context).release()
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exitStatus = status
            return status
        }
        pthread_detach(thread)
        let timedOut = reaper.done.wait(timeout: .now() + seconds) == .timedOut
        if timedOut {
            // Killing makes the helper's waitpid return, so its thread does not outlive the test.
            kill(pid, SIGKILL)
            reaper.done.wait()
        }
        exitStatus = reaper.status.withLock { $0 }
        return timedOut ? nil : exitStatus
    }

    /// Reads whatever either pipe has, waiting at most `seconds` for something to arrive.
    private func readAvailable(waitingAtMost seconds: Double) throws {
        var descriptors: [pollfd] = []
        if outputPipe >= 0 { descriptors.append(pollfd(fd: outputPipe, events: Int16(POLLIN), revents: 0)) }
        if errorPipe >= 0 { descriptors.append(pollfd(fd: errorPipe, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(max(seconds * 1000, 1)))
        if ready < 0 && errno != EINTR { throw TestFailure("poll failed: \(Self.lastError)") }
        for descriptor in descriptors where descriptor.revents != 0 {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                if descriptor.fd == outputPipe {
                    standardOutput += chunk.prefix(count)
                } else {
                    standardError += chunk.prefix(count)
                }
            } else if count == 0 || errno != EINTR {
                close(descriptor.fd)
                if descriptor.fd == outputPipe { outputPipe = -1 } else { errorPipe = -1 }
            }
        }
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

/// The helper thread's half of a bounded `waitpid`.
private final class Reaper: Sendable {
    let pid: pid_t
    let status = Mutex<Int32?>(nil)
    let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        self.pid = pid
    }

    func run() {
        var result: Int32 = 0
        while waitpid(pid, &result, 0) < 0 && errno == EINTR {}
        status.withLock { $0 = result }
        done.signal()
    }
}
