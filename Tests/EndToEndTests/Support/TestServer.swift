import HTTPServer
import MailroomCore
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

    init(mailbox: Mailbox) throws {
        let app = MailroomApp(mailbox: mailbox, publicFolder: PackageLocation.publicFolder, now: { TestServer.now })
        let server = try Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, threads: 2),
            logRequests: false, handler: app.respond(to:))
        try server.start()
        self.app = app
        self.server = server
        self.port = server.port
    }

    deinit { server.stop() }

    /// The inbox as the server holds it now, for checking what a request changed.
    var mailbox: Mailbox { app.snapshot }

    /// The subjects, top to bottom.
    var subjects: [String] { mailbox.messages.map(\.subject) }

    /// A bare HTTP connection to this server.
    func client() -> HTTPClient { HTTPClient(port: port, keepingAlive: self) }

    func stop() { server.stop() }
}
