import Foundation
import Dispatch
import Glibc
import MailroomCore
import Synchronization
import Testing

/// An event stream read off a raw socket, as EventSource reads it.
final class EventStreamReader {
    private let socket: Int32
    private(set) var text = ""

    init(port: Int, lastEventID: Int64? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("could not connect to port \(port)") }
        var request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw TestFailure("could not send the request")
        }
    }

    deinit { close(socket) }

    /// Reads until `condition` holds for what has arrived, or fails after `seconds`.
    @discardableResult
    func read(until condition: (String) -> Bool, within seconds: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !condition(text) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw TestFailure("the stream did not say what was expected; it said:\n\(text)") }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000)) > 0 else { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw TestFailure("the server closed the stream; it said:\n\(text)") }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return text
    }

    /// The ids of the events named `name` so far, in order.
    func ids(of name: String) -> [Int64] {
        text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard lines.contains("event: \(name)"), let id = lines.first(where: { $0.hasPrefix("id: ") }) else { return nil }
            return Int64(id.dropFirst(4))
        }
    }
}

@Suite struct LiveLayerTests {
    private func add(_ subject: String, on server: TestServer) throws {
        let response = try server.client().send(
            "POST", "/mailboxes/inbox", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("action=add&subject=\(subject)".utf8))
        #expect(response.status == 303)
    }

    @Test func aStreamIsToldOfEachCommitAndAResumeLosesNothing() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let first = try EventStreamReader(port: server.port)
        try first.read(until: { $0.contains("event: ready") })
        #expect(first.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.text.contains("Content-Type: text/event-stream"))
        #expect(!first.text.lowercased().contains("content-length"))
        let start = try #require(first.ids(of: "ready").first)

        try add("Bravo", on: server)
        try first.read(until: { $0.contains("event: change") })
        #expect(first.ids(of: "change") == [start + 1])
        #expect(first.text.contains("\"mailboxes\":[{\"id\":\"inbox\",\"name\":\"Inbox\",\"total\":2,\"unread\":2}"))

        // The connection drops; two more commits happen meanwhile; the client comes back.
        let seen = start + 1
        _ = consume first
        try add("Charlie", on: server)
        try add("Delta", on: server)
        let resumed = try EventStreamReader(port: server.port, lastEventID: seen)
        try resumed.read(until: { text in text.components(separatedBy: "event: change").count == 3 })
        #expect(resumed.ids(of: "change") == [seen + 1, seen + 2])
        #expect(resumed.ids(of: "ready").isEmpty)
    }

    @Test func aResumeFromTooLongAgoIsToldToStartOver() throws {
        let server = try TestServer(subjects: ["Alpha"])
        try add("Bravo", on: server)
        let stream = try EventStreamReader(port: server.port, lastEventID: 0)
        try stream.read(until: { $0.contains("event: reset") })
    }

    @Test func idleStreamsGetHeartbeatsAndCountInTheMetrics() throws {
        let server = try TestServer(library: Library(inbox: Mailbox()), heartbeatSeconds: 1)
        let stream = try EventStreamReader(port: server.port)
        try stream.read(until: { $0.contains(": keep-alive\n\n") }, within: 5)
        let metrics = try server.client().send("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("mailroom_event_clients 1\n"))
        #expect(text.contains("mailroom_http_responses_total{code=\"200\"}"))
    }

    @Test func theFaviconIsServedAndStaticFilesAnswerIfModifiedSince() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let client = server.client()
        let icon = try client.send("GET", "/favicon.ico")
        #expect(icon.status == 200)
        #expect(icon.header("Content-Type") == "image/x-icon")
        #expect(Array(icon.body.prefix(4)) == [0, 0, 1, 0])
        let style = try client.send("GET", "/style.css")
        let modified = try #require(style.header("Last-Modified"))
        #expect(try client.send("GET", "/style.css", headers: [("If-Modified-Since", modified)]).status == 304)
        #expect(try client.send("GET", "/style.css", headers: [("If-Modified-Since", "Sat, 01 Jan 2000 00:00:00 GMT")]).status == 200)
        #expect(try client.send("GET", "/style.css", headers: [("If-Modified-Since", "yesterday")]).status == 200)
        // An ETag that does not match wins over a date that would.
        #expect(try client.send("GET", "/style.css", headers: [
            ("If-Modified-Since", modified), ("If-None-Match", "\"other\""),
        ]).status == 200)
        let script = try client.send("GET", "/app.js")
        #expect(script.status == 200)
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
    }

    @Test func everyPageLoadsTheScriptUnderAPolicyThatAllowsOnlyItsOwn() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let page = try server.client().send("GET", "/mailboxes/inbox")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<script src=\"/app.js\" defer></script>"))
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("script-src 'self'"))
        #expect(!policy.contains("unsafe-inline"))
    }
}

/// `wait` racing real mail: the answer comes once the message is committed.
@Suite struct WaitForMailTests {
    @Test func waitAnswersWithTheMessageThatArrivesOverSMTP() throws {
        let database = ScratchDatabase("wait")
        let server = try RunningMailroom(database: database.path, smtp: true)
        defer { _ = try? server.stop() }
        let smtpPort = try #require(server.smtpPort)
        let answer = Mutex<HTTPResponse?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let port = server.port
        let waiter = Thread {
            let client = HTTPClient(port: port, timeoutSeconds: 30)
            answer.withLock { $0 = try? client.send("GET", "/api/v1/wait?q=subject%3Asignup-4711&timeout=20") }
            answered.signal()
        }
        waiter.start()
        let smtp = try SMTPClient.session(port: smtpPort)
        for line in ["MAIL FROM:<app@example.test>", "RCPT TO:<ann@example.test>"] {
            #expect(try smtp.command(line).code == 250)
        }
        #expect(try smtp.command("DATA").code == 354)
        try smtp.send("From: app@example.test\r\nTo: ann@example.test\r\nSubject: signup-4711 confirm\r\n\r\nWelcome\r\n.\r\n")
        #expect(try smtp.readReply().code == 250)
        #expect(answered.wait(timeout: .now() + 25) == .success)
        let response = try #require(answer.withLock { $0 })
        #expect(response.status == 200)
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(object?["subject"] as? String == "signup-4711 confirm")
        #expect((object?["envelope"] as? [String: Any])?["to"] as? [String] == ["ann@example.test"])
    }
}
