import Dispatch
import Glibc
import Synchronization
import Testing

/// A 25 MB mail with a 24 MB base64 attachment, downloaded by many clients at once: each part
/// download reads its part alone, raw downloads stream from the file, a slow reader holds a
/// piece or two and not the message, and more than 16 large downloads at once are told to
/// come back (503, Retry-After) while the rest succeed, byte for byte.
///
/// Before this, every download read the whole message into memory (and a part download parsed
/// it too): 20 downloads of such a part took the server from 114 to 630 MB.
@Suite(.serialized) struct LargeDownloadTests {
    /// The cap the server starts with (`DownloadSlots.defaultLimit`).
    static let cap = 16
    /// How much more than before the downloads the server may take. Each download holds about
    /// a 256 KiB piece in the server (and its decoder's buffer); 16 of them, the readers' SQLite
    /// caches and the allocator's slack stay well under this, where whole messages would need
    /// 25 MB each (400 MB for 16).
    static let allowedGrowthKilobytes = 100 * 1_024

    /// The attachment (18 MB of noise, 24 MB once in base64) and the whole mail, as sent.
    static let content: [UInt8] = noise(count: 18 << 20)
    static let mail: [UInt8] = {
        var text = Array("""
            From: Scanner <scanner@office.test>\r
            To: inbox@example.test\r
            Subject: Big scan\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary="b1"\r
            \r
            --b1\r
            Content-Type: text/plain\r
            \r
            The scan is attached.\r
            --b1\r
            Content-Type: application/pdf; name="scan.pdf"\r
            Content-Disposition: attachment; filename="scan.pdf"\r
            Content-Transfer-Encoding: base64\r
            \r

            """.utf8)
        text += base64Lines(content)
        text += Array("--b1--\r\n".utf8)
        return text
    }()

    @Test func twentyClientsDownloadingTheBigPartAndTheRawMailGetItExactlyOrA503AndTheServerStaysSmall() throws {
        let server = try SMTPTestServer("large-downloads", extra: ["--max-message-size", String(40 << 20)])
        let session = try server.session()
        #expect(try session.sendMessage(Self.mail).code == 250)
        session.close()
        let id = try #require(try server.mailroom.inboxRows().first { $0.subject == "Big scan" }?.id)
        let port = server.mailroom.port
        let baseline = try residentKilobytes(of: server.mailroom)
        let peak = PeakMemory(pid: server.mailroom.program.pid)

        for (target, expected) in [("/messages/\(id)/parts/0", Self.content), ("/messages/\(id)/raw", Self.mail)] {
            // Twenty at once, none reading its body yet: the first 16 hold a slot each.
            var downloads = try (0..<20).map { _ in try CheckedDownload(port: port, target: target) }
            for download in downloads { try download.readHead() }
            let refused = downloads.filter { $0.status == 503 }
            let started = downloads.filter { $0.status == 200 }
            #expect(started.count == Self.cap, "\(target): \(downloads.map(\.status))")
            #expect(refused.count == 20 - Self.cap)
            for download in refused {
                #expect(download.header("Retry-After") == "1")
                #expect(download.header("Content-Type")?.hasPrefix("text/html") == true)
            }
            for download in started { #expect(download.header("Content-Length") == String(expected.count)) }
            try CheckedDownload.readAll(started, expecting: expected)
            for download in started { #expect(download.matched == expected.count, "\(target): \(download.problem ?? "short")") }

            // The slots are free again: the refused ones come back and get it all.
            downloads = try refused.map { _ in try CheckedDownload(port: port, target: target) }
            for download in downloads { try download.readHead() }
            #expect(downloads.map(\.status) == Array(repeating: 200, count: refused.count))
            try CheckedDownload.readAll(downloads, expecting: expected)
            for download in downloads { #expect(download.matched == expected.count, "\(target): \(download.problem ?? "short")") }
        }
        let highest = peak.stop()
        print("LargeDownloadTests: RSS before the downloads \(baseline / 1_024) MB, highest during them \(highest / 1_024) MB")
        #expect(highest < baseline + Self.allowedGrowthKilobytes, "RSS went from \(baseline) kB to \(highest) kB")
        #expect(try server.stop() == 0)
    }

    @Test func slowReadersOfTheRawMailDoNotMakeTheServerHoldTheMessage() throws {
        let server = try SMTPTestServer("slow-raw", extra: ["--max-message-size", String(40 << 20)])
        let session = try server.session()
        #expect(try session.sendMessage(Self.mail).code == 250)
        session.close()
        let id = try #require(try server.mailroom.inboxRows().first { $0.subject == "Big scan" }?.id)
        let baseline = try residentKilobytes(of: server.mailroom)

        // Eight readers take the head and a little of the body, then stop reading: the server
        // has sent what their sockets take and waits, holding a piece each at most.
        let readers = try (0..<8).map { _ in try CheckedDownload(port: server.mailroom.port, target: "/messages/\(id)/raw", receiveBuffer: 16_384) }
        for reader in readers {
            try reader.readHead()
            #expect(reader.status == 200)
            try reader.readBody(atMost: 4_096, expecting: Self.mail)
        }
        try waitUntil(within: 10) { readers.allSatisfy { $0.queuedBytes > 0 } }
        let held = try residentKilobytes(of: server.mailroom)
        print("LargeDownloadTests: RSS before the slow readers \(baseline / 1_024) MB, with eight of them \(held / 1_024) MB")
        // Whole messages would be 8 × 25 MB.
        #expect(held < baseline + 50 * 1_024, "RSS went from \(baseline) kB to \(held) kB")

        // Gone without reading the rest: their slots come back, and the cap's worth of
        // downloads starts again.
        for reader in readers { reader.close() }
        try waitUntil(within: 10) {
            let downloads = try (0..<Self.cap).map { _ in try CheckedDownload(port: server.mailroom.port, target: "/messages/\(id)/raw") }
            for download in downloads { try download.readHead() }
            return downloads.allSatisfy { $0.status == 200 }
        }
        #expect(try server.stop() == 0)
    }

    @Test func aHeadOfTheBigPartTellsItsLengthAndSendsNoBody() throws {
        let server = try SMTPTestServer("head-part", extra: ["--max-message-size", String(40 << 20)])
        let session = try server.session()
        #expect(try session.sendMessage(Self.mail).code == 250)
        session.close()
        let id = try #require(try server.mailroom.inboxRows().first { $0.subject == "Big scan" }?.id)
        let client = HTTPClient(port: server.mailroom.port, timeoutSeconds: 10)
        let head = try client.send("HEAD", "/messages/\(id)/parts/0")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(Self.content.count))
        #expect(head.body.isEmpty)
        // The connection is still in step: the next answer is the next request's.
        let small = try client.send("GET", "/messages/\(id)")
        #expect(small.status == 200)
        client.close()
        #expect(try server.stop() == 0)
    }

    // MARK: Helpers

    private func residentKilobytes(of mailroom: RunningMailroom) throws -> Int {
        try SMTPHostileTests.residentKilobytes(of: mailroom)
    }

    private func waitUntil(within seconds: Double, _ condition: () throws -> Bool) throws {
        let deadline = Deadline(seconds)
        while !(try condition()) {
            guard !deadline.hasPassed else { throw TestFailure("the condition did not hold within \(seconds) s") }
            usleep(20_000)
        }
    }

    /// Bytes that do not repeat or compress, the same every run.
    static func noise(count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buffer[index] = UInt8(truncatingIfNeeded: state)
            }
            initialized = count
        }
    }

    /// `bytes` in base64, 76 characters a line, each ended by CRLF.
    static func base64Lines(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let quanta = (bytes.count + 2) / 3
        let lines = (quanta + 18) / 19
        return [UInt8](unsafeUninitializedCapacity: quanta * 4 + lines * 2) { out, initialized in
            var at = 0
            bytes.withUnsafeBufferPointer { input in
                var index = 0
                var quantum = 0
                while index < input.count {
                    let left = input.count - index
                    let b0 = Int(input[index])
                    let b1 = left > 1 ? Int(input[index + 1]) : 0
                    let b2 = left > 2 ? Int(input[index + 2]) : 0
                    let value = b0 << 16 | b1 << 8 | b2
                    out[at] = alphabet[value >> 18 & 63]
                    out[at + 1] = alphabet[value >> 12 & 63]
                    out[at + 2] = left > 1 ? alphabet[value >> 6 & 63] : UInt8(ascii: "=")
                    out[at + 3] = left > 2 ? alphabet[value & 63] : UInt8(ascii: "=")
                    at += 4
                    index += 3
                    quantum += 1
                    if quantum % 19 == 0 || index >= input.count {
                        out[at] = 13
                        out[at + 1] = 10
                        at += 2
                    }
                }
            }
            initialized = at
        }
    }
}

/// The highest VmRSS of a process, sampled every 10 ms on a thread of its own until `stop`.
private final class PeakMemory: Sendable {
    private let highest = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        DispatchQueue.global().async { [self] in
            while !stopped.load(ordering: .acquiring) {
                if let now = Self.resident(pid) { _ = highest.max(now, ordering: .relaxed) }
                usleep(10_000)
            }
            done.signal()
        }
    }

    func stop() -> Int {
        stopped.store(true, ordering: .releasing)
        done.wait()
        return highest.load(ordering: .relaxed)
    }

    private static func resident(_ pid: pid_t) -> Int? {
        guard let handle = fopen("/proc/\(pid)/status", "r") else { return nil }
        defer { fclose(handle) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), handle) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") { return Int(text.dropFirst(6).filter(\.isNumber)) }
        }
        return nil
    }
}

/// One GET on a connection of its own whose body is compared with the expected bytes as it
/// arrives (nothing is kept), so many big downloads can be checked at once.
private final class CheckedDownload {
    let socket: Int32
    private(set) var status = 0
    private var headers: [(String, String)] = []
    /// Body bytes read so far that matched.
    private(set) var matched = 0
    private(set) var problem: String?
    private var length = 0
    private var pending: [UInt8] = []

    init(port: Int, target: String, receiveBuffer: Int32 = 65_536) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("socket failed") }
        // A small receive buffer keeps a download that is not being read from finishing by itself.
        var size = receiveBuffer
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw TestFailure("cannot connect to port \(port)")
        }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw TestFailure("the request was not sent")
        }
    }

    deinit { close() }

    func close() {
        guard socket >= 0 else { return }
        Glibc.close(socket)
    }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Bytes the kernel holds for this socket that were not read yet.
    var queuedBytes: Int {
        var count: Int32 = 0
        _ = ioctl(socket, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// Reads up to the end of the head: the status and the fields.
    func readHead() throws {
        while true {
            if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                let lines = String(decoding: pending[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
                pending.removeSubrange(..<end.upperBound)
                status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " ")))
                }
                length = Int(header("Content-Length") ?? "") ?? 0
                return
            }
            guard try receive() > 0 else { throw TestFailure("the connection closed before the head ended") }
        }
    }

    /// Reads at most `limit` more body bytes, checking them.
    func readBody(atMost limit: Int, expecting expected: [UInt8]) throws {
        if pending.isEmpty { _ = try receive() }
        check(limit: limit, expected)
    }

    /// Reads every download's body to its end, whichever has bytes first, checking each piece.
    static func readAll(_ downloads: [CheckedDownload], expecting expected: [UInt8]) throws {
        for download in downloads { download.check(limit: .max, expected) }
        var open = downloads.filter { $0.matched < $0.length && $0.problem == nil }
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 20_000) > 0 else { throw TestFailure("no download moved in 20 s") }
            for (index, entry) in polled.enumerated() where entry.revents != 0 {
                let download = open[index]
                if try download.receive() == 0 { download.problem = "closed after \(download.matched) bytes" }
                download.check(limit: .max, expected)
            }
            open = open.filter { $0.matched < $0.length && $0.problem == nil }
        }
    }

    private func check(limit: Int, _ expected: [UInt8]) {
        let count = min(pending.count, limit, expected.count - matched)
        guard count > 0 else {
            if !pending.isEmpty && problem == nil { problem = "\(pending.count) bytes past the end" }
            return
        }
        let same = pending.withUnsafeBytes { got in
            expected.withUnsafeBytes { want in memcmp(got.baseAddress!, want.baseAddress! + matched, count) == 0 }
        }
        guard same else {
            problem = "different bytes within \(matched)..<\(matched + count)"
            return
        }
        matched += count
        pending.removeFirst(count)
    }

    /// One read into `pending`: how many bytes came (0 at the end).
    private func receive() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 262_144)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if read < 0 && errno == EINTR { continue }
            guard read >= 0 else { throw TestFailure("recv failed: \(String(cString: strerror(errno)))") }
            pending += chunk[..<read]
            return read
        }
    }
}
