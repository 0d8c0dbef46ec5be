import Glibc
import MailroomCore
import MailroomStore

/// A database file of its own under /tmp for one test, removed with its `-wal`, `-shm` and
/// `-journal` side files when the test lets go of it.
final class ScratchDatabase {
    let path: String

    init(_ label: String) {
        path = "/tmp/mailroom-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite"
        remove()
    }

    deinit { remove() }

    /// `count` short messages in the Inbox ("Stored 1" at the bottom), written through the store
    /// as a bulk load, before any Mailroom opens the file.
    /// `count` messages in the Inbox, those in `flagged` flagged, in one open of the file: a
    /// second open just after a close can find the file's lock still held for a moment by a
    /// process another test is starting (a spawned child holds copies of the descriptors until
    /// it runs its program).
    func seed(messages count: Int, flagged: [MessageID] = []) throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.write { transaction in
            for index in 1...count {
                let message = Message(id: MessageID(Int64(index)), subject: "Stored \(index)",
                                      body: "Kept from before, number \(index).", author: "Seed",
                                      createdAt: 1_700_000_000 + Int64(index))
                try transaction.insert(message, into: .inbox, rank: Int64(index) << 20, origin: nil)
            }
            if !flagged.isEmpty { try transaction.setFlagged(true, for: flagged, in: .inbox) }
        }
    }

    func remove() {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}

/// What a new database starts with, as the flags tell the program.
enum FirstContent {
    /// `--no-samples`: nothing, which most tests count on.
    case empty
    /// No flag: the welcome message.
    case welcome
    /// `--samples`: the six demo messages.
    case samples

    var flags: [String] {
        switch self {
        case .empty: ["--no-samples"]
        case .welcome: []
        case .samples: ["--samples"]
        }
    }
}

/// The real `mailroom` program serving one database file on a free port of 127.0.0.1, started
/// with `--port 0 --quiet` and, unless told otherwise, `--no-samples` (so nothing fills its output pipe while it serves).
final class RunningMailroom {
    let program: ChildProcess
    let port: Int
    let database: String
    /// The SMTP port, when started with one.
    let smtpPort: Int?

    /// Starts the program and waits for its banner, which it prints once it is listening. With
    /// `smtp`, it also takes mail on a free port; `extra` flags go last. A new database starts
    /// empty unless `firstContent` says otherwise.
    init(database: String, smtp: Bool = false, firstContent: FirstContent = .empty, extra: [String] = [],
         within seconds: Double = 10) throws {
        self.database = database
        // A free port can be taken by someone else before Mailroom binds it: then another.
        var attempt = 0
        while true {
            attempt += 1
            let smtpPort = smtp ? try FreePort.pick() : nil
            let program = try ChildProcess(
                executable: try MailroomExecutable.path(),
                arguments: Self.arguments(database: database, smtpPort: smtpPort ?? 0, firstContent: firstContent) + extra)
            do {
                _ = try program.waitForOutputLine(within: seconds) { $0.hasPrefix("Mailroom listening on http://127.0.0.1:") }
            } catch where attempt < 3 && program.errorText.contains("cannot listen on") {
                continue
            }
            self.program = program
            self.smtpPort = smtpPort
            break
        }
        let banner = try program.waitForOutputLine(within: seconds) { $0.hasPrefix("Mailroom listening on http://127.0.0.1:") }
        guard let port = Self.port(in: banner) else { throw TestFailure("no port in the banner: \(banner)") }
        self.port = port
    }

    static func arguments(database: String, smtpPort: Int = 0, firstContent: FirstContent = .empty) -> [String] {
        ["--port", "0", "--smtp-port", String(smtpPort)] + firstContent.flags
            + ["--quiet", "--page-size", "500", "--db", database, "--public", PackageLocation.publicFolder]
    }

    /// A new tab on this server, with its own keep-alive connection.
    func browser() -> BrowserSession { BrowserSession(port: port) }

    /// SIGTERM, then the exit code (0 is a clean shutdown).
    func stop(within seconds: Double = 10) throws -> Int32 {
        program.send(SIGTERM)
        return try program.waitForExit(within: seconds)
    }

    /// SIGKILL, then waits until the process is gone (reaped), so its file lock is released.
    func kill(within seconds: Double = 10) throws {
        program.send(SIGKILL)
        do {
            let code = try program.waitForExit(within: seconds)
            throw TestFailure("the program exited with \(code) before SIGKILL reached it")
        } catch let failure as TestFailure where failure.description.contains("killed by signal \(SIGKILL)") {
            return
        }
    }

    /// The port in `Mailroom listening on http://127.0.0.1:PORT/ ...`.
    static func port(in banner: String) -> Int? {
        let afterHost = banner.split(separator: "127.0.0.1:", maxSplits: 1).last ?? ""
        return Int(afterHost.prefix { $0.isNumber })
    }
}

/// Quick reading of big list pages without building every tag: the subjects, top to bottom.
enum ListHTML {
    /// The text of every `<span class="subject">`, entity-decoded, in page order.
    static func subjects(in html: String) -> [String] {
        let marker = Array("<span class=\"subject\">".utf8)
        let bytes = Array(html.utf8)
        var subjects: [String] = []
        var index = 0
        while let range = bytes[index...].firstRange(of: marker) {
            var end = range.upperBound
            while end < bytes.count, bytes[end] != UInt8(ascii: "<") { end += 1 }
            subjects.append(HTMLScanner.decodeEntities(String(decoding: bytes[range.upperBound..<end], as: UTF8.self)))
            index = end
        }
        return subjects
    }

    /// Where the page's Older link leads (entity-decoded), or nil on the last page.
    static func olderLink(in html: String) -> String? {
        let bytes = Array(html.utf8)
        guard let link = bytes.firstRange(of: Array("id=\"older\"".utf8)),
              let close = bytes[link.upperBound...].firstIndex(of: UInt8(ascii: ">")),
              let href = bytes[link.upperBound..<close].firstRange(of: Array("href=\"".utf8)),
              let end = bytes[href.upperBound..<close].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return HTMLScanner.decodeEntities(String(decoding: bytes[href.upperBound..<end], as: UTF8.self))
    }

    /// The value of the first `<input name="csrf">`, found without scanning the whole page; nil when there is none.
    static func formToken(in html: String) -> String? {
        let bytes = Array(html.utf8)
        guard let name = bytes.firstRange(of: Array("name=\"csrf\"".utf8)),
              let open = bytes[..<name.lowerBound].lastIndex(of: UInt8(ascii: "<")),
              let close = bytes[name.upperBound...].firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        return HTMLScanner.startTags(in: Array(bytes[open...close])).first?["value"]
    }
}

extension Page {
    /// The anti-forgery token the page's forms carry (`<input name="csrf">`), nil when they carry none.
    var formToken: String? { tags("input").first { $0["name"] == "csrf" }?["value"] }
}

/// A form post as a script sends it: url-encoded fields, with the Origin a browser would add.
extension HTTPClient {
    /// The anti-forgery token that this server's pages carry, read from the Inbox; nil when there is none.
    func fetchFormToken() throws -> String? {
        let response = try send("GET", "/mailboxes/inbox", headers: [("Accept", "text/html")])
        guard response.status == 200 else { throw TestFailure("GET /mailboxes/inbox answered \(response.status)") }
        return ListHTML.formToken(in: response.text)
    }

    /// Posts `fields`, plus `csrf=token` when a token is given, and returns the answer unfollowed.
    func postForm(_ target: String, _ fields: [(String, String)], token: String? = nil) throws -> HTTPResponse {
        let all = fields + (token.map { [("csrf", $0)] } ?? [])
        return try send(
            "POST", target,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Origin", "http://127.0.0.1:\(port)"),
            ],
            body: Array(URLQuery.encode(all).utf8))
    }
}

