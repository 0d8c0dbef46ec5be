import MailroomCore
import MailroomNet
import MailroomService
import MailroomWeb

/// The real libevent server on a free port of 127.0.0.1, serving a fresh app; it stops when
/// the last reference to it (the test, or a browser tab on it) goes away.
final class TestServer {
    /// The app's clock, fixed so pages render the same bytes every time.
    static let now: Int64 = 1_790_000_000

    let app: MailroomApp
    let port: Int
    private let server: Server

    /// A server whose inbox holds `subjects` top to bottom, with ids 1, 2, 3, ... all unread.
    convenience init(subjects: [String]) throws {
        let messages = subjects.enumerated().map { offset, subject in
            Message(id: MessageID(Int64(offset + 1)), subject: subject, createdAt: Self.now - Int64(offset) * 60)
        }
        try self.init(mailbox: Mailbox(messages: messages))
    }

    /// A server whose inbox holds `count` messages named "Message 1" ... with ids 1...count.
    convenience init(messages count: Int) throws {
        try self.init(subjects: (0..<count).map { "Message \($0 + 1)" })
    }

    convenience init(mailbox: Mailbox) throws {
        try self.init(library: Library(inbox: mailbox))
    }

    /// A server over a whole library in a store of its own, with `threads` event loops;
    /// `beforeCommit` runs inside every commit.
    init(
        library: Library, threads: Int = 2, pageSize: Int = 500, heartbeatSeconds: Int = 15, beforeCommit: BeforeCommit? = nil
    ) throws {
        let app = try MailroomApp(
            library: library, publicFolder: PackageLocation.publicFolder, now: { TestServer.now }, pageSize: pageSize,
            beforeCommit: beforeCommit)
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, threads: threads)
        configuration.heartbeatSeconds = heartbeatSeconds
        let server = try Server(
            configuration: configuration, logRequests: false, metrics: app.metrics, events: app.events,
            mayWait: app.mayStore(_:), handler: app.respond(to:))
        try server.start()
        self.app = app
        self.server = server
        self.port = server.port
    }

    /// A library with Inbox, Archive and one mailbox of one's own per `custom` (ids 100, 101, ...).
    /// Messages are listed top to bottom and numbered 1, 2, 3, ... in the order they appear here:
    /// the Inbox's, then the Archive's, then each custom mailbox's. All are unread and unflagged
    /// unless their number is in `read` or `flagged`.
    static func library(
        inbox: [String], archive: [String] = [], custom: [(String, [String])] = [],
        read: Set<Int> = [], flagged: Set<Int> = []
    ) -> Library {
        var next = 1
        func messages(_ subjects: [String]) -> [Message] {
            subjects.map { subject in
                defer { next += 1 }
                return Message(
                    id: MessageID(Int64(next)), subject: subject, createdAt: now - Int64(next) * 60,
                    isUnread: !read.contains(next), isFlagged: flagged.contains(next))
            }
        }
        var boxes = [
            Mailbox(id: .inbox, name: "Inbox", messages: messages(inbox)),
            Mailbox(id: .archive, name: "Archive", messages: messages(archive)),
        ]
        for (offset, (name, subjects)) in custom.enumerated() {
            boxes.append(Mailbox(
                id: MailboxID(rawValue: MailboxID.firstCustom + Int64(offset)), name: name, messages: messages(subjects)))
        }
        return Library(mailboxes: boxes)
    }

    deinit { server.stop() }

    /// The inbox as the server holds it now, for checking what a request changed.
    var mailbox: Mailbox { app.snapshot }

    /// The subjects, top to bottom.
    var subjects: [String] { mailbox.messages.map(\.subject) }

    /// Every mailbox and message as the server holds them now.
    var library: Library { app.library }

    /// The ids of mailbox `box`'s messages, top to bottom; empty when it does not exist.
    func ids(in box: MailboxID) -> [Int] { library[box]?.ids.map { Int($0.rawValue) } ?? [] }

    /// A bare HTTP connection to this server.
    func client() -> HTTPClient { HTTPClient(port: port, keepingAlive: self) }

    func stop() { server.stop() }
}
