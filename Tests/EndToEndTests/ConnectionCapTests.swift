import Foundation
import Glibc
import Synchronization
import Testing

/// The doors' caps, tried as an attacker would with the real program: a second Mailroom on the
/// same ports, idle connections that hold every slot from one address, and a flood that runs
/// the process out of file descriptors.
@Suite struct ConnectionCapTests {
    /// A second Mailroom on a port the first serves (HTTP or SMTP) says so and exits 1 before
    /// serving anything, so the kernel never splits connections between two databases; so does
    /// one started on a port some other program listens on.
    @Test func aSecondMailroomOnTheSamePortsIsRefused() throws {
        let first = try SMTPTestServer("caps-first")
        let smtpPort = first.smtpPort
        let second = ScratchDatabase("caps-second")
        for (http, smtp) in [(first.mailroom.port, try FreePort.pick()), (try FreePort.pick(), smtpPort)] {
            let program = try ChildProcess(
                executable: try MailroomExecutable.path(),
                arguments: ["--port", String(http), "--smtp-port", String(smtp), "--no-samples", "--quiet",
                            "--db", second.path, "--public", PackageLocation.publicFolder])
            #expect(try program.waitForExit(within: 10) == 1)
            #expect(program.errorText.contains("another Mailroom is already serving port"), "\(program.errorText)")
            #expect(!program.outputText.contains("listening"), "\(program.outputText)")
        }

        // A port that another program holds, without SO_REUSEPORT.
        let (other, otherPort) = try Loopback.listen()
        defer { close(other) }
        let program = try ChildProcess(
            executable: try MailroomExecutable.path(),
            arguments: ["--port", String(otherPort), "--smtp-port", "0", "--no-samples", "--quiet",
                        "--db", second.path, "--public", PackageLocation.publicFolder])
        #expect(try program.waitForExit(within: 10) == 1)
        #expect(program.errorText.contains("another process is already listening on port \(otherPort)"), "\(program.errorText)")

        // Every page and every message still reaches the first one.
        let client = try first.session()
        #expect(try client.sendMessage("Subject: Only here\r\n\r\nOne database.\r\n").code == 250)
        for _ in 0..<10 {
            #expect(try first.mailroom.inboxRows().map(\.subject) == ["Only here"])
        }
        #expect(try first.stop() == 0)
    }

    /// Postfix's rule: one address holds at most 50 sessions. 205 idle sessions from 127.0.0.1
    /// get 50 greetings and 155 × 421, while 127.0.0.2 still mails and is stored.
    @Test func idleSMTPSessionsFromOneAddressLeaveRoomForOthers() throws {
        let server = try SMTPTestServer("caps-smtp-per-ip")
        let held = try Loopback.connect(to: server.smtpPort, count: 205)
        defer { for fd in held { close(fd) } }
        let firstLines = Loopback.firstLines(of: held, within: 10)
        let greeted = firstLines.filter { $0.hasPrefix("220 ") }.count
        let refused = firstLines.filter { $0.hasPrefix("421 4.7.0 ") && $0.contains("from your address") }.count
        #expect(greeted == 50 && refused == 155, "greeted \(greeted), refused \(refused): \(Set(firstLines))")

        let other = try SMTPClient.session(port: server.smtpPort, source: "127.0.0.2")
        #expect(try other.sendMessage("Subject: From another address\r\n\r\nStill served.\r\n").code == 250)
        #expect(try server.mailroom.inboxRows().map(\.subject) == ["From another address"])
        #expect(try server.stop() == 0)
    }

    /// One address holds at most `--max-per-ip` HTTP connections; the rest are answered 503 with
    /// Retry-After at once, and another address is served meanwhile.
    @Test func idleHTTPConnectionsFromOneAddressLeaveRoomForOthers() throws {
        let database = ScratchDatabase("caps-http-per-ip")
        let server = try RunningMailroom(database: database.path, extra: ["--max-per-ip", "20"])
        let held = try Loopback.connect(to: server.port, count: 30)
        defer { for fd in held { close(fd) } }
        let answered = Loopback.firstLines(of: held, within: 3)
        #expect(answered.count == 10 && answered.allSatisfy { $0 == "HTTP/1.1 503 Service Unavailable" }, "\(answered)")

        let other = try Loopback.get("/healthz", port: server.port, from: "127.0.0.2")
        #expect(other.hasPrefix("HTTP/1.1 200 "), "\(other.prefix(200))")
        #expect(try server.stop() == 0)
    }

    /// Out of file descriptors, accept(2) fails while the socket stays readable: the listener
    /// rests instead of retrying at once, so 300 held connections under `ulimit -n 160` cost the
    /// server almost no CPU and add no flood of log lines, and once they go, a new client is served.
    @Test func runningOutOfDescriptorsNeitherSpinsNorFloodsTheLog() throws {
        let database = ScratchDatabase("caps-descriptors")
        let program = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "ulimit -n 160 && exec \"$0\" \"$@\"", try MailroomExecutable.path(),
                        "--port", "0", "--smtp-port", "0", "--no-samples", "--quiet", "--threads", "2",
                        "--max-connections", "1000", "--max-per-ip", "0",
                        "--db", database.path, "--public", PackageLocation.publicFolder])
        let banner = try program.waitForOutputLine(within: 10) { $0.hasPrefix("Mailroom listening on http://127.0.0.1:") }
        let port = try #require(RunningMailroom.port(in: banner))

        var held = try Loopback.connect(to: port, count: 300)
        defer { for fd in held { close(fd) } }
        // The server has taken every descriptor it may.
        let full = Loopback.waitUntil(within: 10) { Loopback.openDescriptors(of: program.pid) >= 150 }
        #expect(full, "open descriptors: \(Loopback.openDescriptors(of: program.pid))")

        let linesBefore = try program.output(after: 0.5).split(separator: "\n").count + program.errorText.split(separator: "\n").count
        let cpuBefore = Loopback.cpuSeconds(of: program.pid)
        let linesAfter = try program.output(after: 3).split(separator: "\n").count + program.errorText.split(separator: "\n").count
        let cpu = Loopback.cpuSeconds(of: program.pid) - cpuBefore
        #expect(cpu < 0.3, "the server used \(cpu) s of CPU in 3 s while out of descriptors")
        #expect(linesAfter - linesBefore <= 5, "\(linesAfter - linesBefore) log lines in 3 s: \(program.outputText.suffix(600)) \(program.errorText.suffix(600))")
        #expect(program.outputText.contains("HTTP refused connections:") && program.outputText.contains("out of file descriptors"),
                "\(program.outputText.suffix(600))")

        for fd in held { close(fd) }
        held = []
        var answer = ""
        let served = Loopback.waitUntil(within: 10) {
            answer = (try? Loopback.get("/healthz", port: port, from: "127.0.0.2")) ?? ""
            return answer.hasPrefix("HTTP/1.1 200 ")
        }
        #expect(served, "\(answer.prefix(200))")
        program.send(SIGTERM)
        #expect(try program.waitForExit(within: 10) == 0)
    }

    /// An event stream whose client stops reading is dropped after the write timeout once what
    /// it did not take backs up; a stream that reads stays open through the same events.
    @Test func anEventStreamThatIsNotReadIsDropped() throws {
        let server = try SMTPTestServer("caps-stalled-stream", extra: ["--timeout", "2"])
        let port = server.mailroom.port
        let stalled = try Loopback.stream(port: port, receiveBuffer: 2_048)
        defer { close(stalled) }
        let healthy = try Loopback.stream(port: port)
        defer { close(healthy) }
        let reader = StreamReader(healthy)
        reader.start()
        defer { reader.stop() }
        let client = HTTPClient(port: port)
        // A new connection for each look: sending 400 messages may outlast the 2 s keep-alive.
        func streams() -> Int? {
            guard let metrics = try? client.send("GET", "/metrics", headers: [("Connection", "close")]),
                  metrics.status == 200 else { return nil }
            let line = metrics.text.split(separator: "\n").first { $0.hasPrefix("mailroom_event_clients ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect(Loopback.waitUntil(within: 10) { streams() == 2 }, "streams open: \(String(describing: streams()))")

        // Each message is a commit and an event for both streams.
        let mail = try server.session()
        for index in 1...400 {
            let reply = try mail.sendMessage("Subject: Event \(index)\r\n\r\nOne more change.\r\n")
            guard reply.code == 250 else { throw TestFailure("message \(index): \(reply)") }
        }
        #expect(Loopback.waitUntil(within: 15) { streams() == 1 }, "streams open: \(String(describing: streams()))")
        #expect(reader.received > 40_000, "the reading stream took \(reader.received) bytes")
        #expect(!reader.closed)
        #expect(try server.stop() == 0)
    }
}

/// Reads a socket on a thread of its own until told to stop, counting the bytes.
final class StreamReader: @unchecked Sendable {
    private let fd: Int32
    private let state = Mutex((received: 0, closed: false, stopping: false))

    init(_ fd: Int32) {
        self.fd = fd
    }

    var received: Int { state.withLock { $0.received } }
    var closed: Bool { state.withLock { $0.closed } }

    func start() {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !state.withLock({ $0.stopping }) {
                var readable = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                guard poll(&readable, 1, 50) == 1 else { continue }
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN) {
                    state.withLock { $0.closed = true }
                    return
                }
                if count > 0 { state.withLock { $0.received += count } }
            }
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopping = true }
    }
}

/// Raw loopback sockets for the cap tests: connections opened and held without a word.
enum Loopback {
    /// A listening socket of some other program on a free port, without SO_REUSEPORT.
    static func listen() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestFailure("cannot listen: \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `count` non-blocking connections to `port` from `source`, not waited for.
    static func connect(to port: Int, count: Int, from source: String = "127.0.0.1") throws -> [Int32] {
        var sockets: [Int32] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                for open in sockets { close(open) }
                throw TestFailure("socket: \(errno)")
            }
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_addr.s_addr = inet_addr("127.0.0.1")
            remote.sin_port = in_port_t(UInt16(port).bigEndian)
            let size = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
            let status = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
            }
            guard status == 0 || errno == EINPROGRESS else {
                close(fd)
                for open in sockets { close(open) }
                throw TestFailure("connect: \(errno)")
            }
            sockets.append(fd)
        }
        return sockets
    }

    /// A connection that asks for `/events` and reads nothing; with `receiveBuffer`, its
    /// kernel takes only that much before the server's bytes back up.
    static func stream(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        let status = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw TestFailure("connect: \(errno)")
        }
        let request = Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            close(fd)
            throw TestFailure("send: \(errno)")
        }
        return fd
    }

    /// The first line that each socket that hears anything within `seconds` is told.
    static func firstLines(of sockets: [Int32], within seconds: Double) -> [String] {
        var pending = Set(sockets)
        var lines: [String] = []
        let deadline = now() + seconds
        while !pending.isEmpty, now() < deadline {
            var descriptors = pending.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 100) > 0 else { continue }
            for descriptor in descriptors where descriptor.revents != 0 {
                pending.remove(descriptor.fd)
                var buffer = [UInt8](repeating: 0, count: 2048)
                let count = recv(descriptor.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { continue }
                let text = String(decoding: buffer.prefix(count), as: UTF8.self)
                lines.append(String(text.split(separator: "\r\n", omittingEmptySubsequences: false).first ?? ""))
            }
        }
        return lines
    }

    /// One GET on a connection of its own from `source`, and the whole answer.
    static func get(_ target: String, port: Int, from source: String) throws -> String {
        guard let fd = try connect(to: port, count: 1, from: source).first else { throw TestFailure("no socket") }
        defer { close(fd) }
        var writable = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
        guard poll(&writable, 1, 5_000) == 1 else { throw TestFailure("not connected in 5 s") }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw TestFailure("send: \(errno)") }
        var answer: [UInt8] = []
        let deadline = now() + 5
        while now() < deadline {
            var readable = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&readable, 1, 200) == 1 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count <= 0 { break }
            answer += buffer.prefix(count)
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func openDescriptors(of pid: pid_t) -> Int {
        guard let folder = opendir("/proc/\(pid)/fd") else { return 0 }
        defer { closedir(folder) }
        var count = 0
        while readdir(folder) != nil { count += 1 }
        return count - 2
    }

    /// User and system CPU time the process has used.
    static func cpuSeconds(of pid: pid_t) -> Double {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return 0 }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        guard let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Polls `condition` until it holds or `seconds` pass.
    static func waitUntil(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = now() + seconds
        while now() < deadline {
            if condition() { return true }
            _ = poll(nil, 0, 20)
        }
        return condition()
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
