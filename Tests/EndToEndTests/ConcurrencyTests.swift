import Glibc
import MailroomCore
import Testing
import TestSupport

/// DESIGN.md §3 and §5: posts from many clients at once (one event loop per core) are applied one
/// at a time under one lock: none is lost, none is applied twice, and each is answered 303.
@Suite struct ConcurrencyTests {
    static let clients = 6

    @Test func simultaneousAddsFromSixClientsAllLandOnTopInTheOrderEachClientSentThem() throws {
        let server = try TestServer(subjects: [])
        let perClient = 40
        let statuses = SharedValue<[[Int]]>(Array(repeating: [], count: Self.clients))
        let port = server.port
        try TestThreads.runTogether(Self.clients) { client in
            // A guard against a hang, not a claim about speed (`make bench` has those): other
            // suites run beside this one on two cores, and a post waits for its group's sync.
            let connection = HTTPClient(port: port, timeoutSeconds: 30)
            for n in 0..<perClient {
                let status: Int
                do {
                    status = try connection.postForm("/mailboxes/inbox", [("action", "add"), ("subject", "c\(client)-\(n)")]).status
                } catch {
                    status = -1
                }
                statuses.withLock { $0[client].append(status) }
            }
            connection.close()
        }

        for (client, answers) in statuses.withLock({ $0 }).enumerated() {
            #expect(answers == Array(repeating: 303, count: perClient), "client \(client)")
        }
        let page = try server.browser().get("/mailboxes/inbox")
        let shown = ListHTML.subjects(in: page.html)
        #expect(shown == server.subjects, "the page and the in-memory Inbox agree")
        Self.expectEachClientsPostsInReverse(shown, clients: Self.clients, perClient: perClient, prefix: "c")
        // Ids are handed out once each.
        #expect(Set(page.rowIDs).count == Self.clients * perClient)
    }

    @Test func concurrentFlagTogglesAndMovesLoseNothingAndThePageMatchesTheLibrary() throws {
        let initial = TestServer.library(inbox: (1...6).map { "Message \($0)" }, flagged: [2, 5])
        let server = try TestServer(library: initial)
        let port = server.port
        let operations = 30
        let problems = SharedValue<[String]>([])
        try TestThreads.runTogether(4) { client in
            var random = SeededGenerator(seed: 0xC0FFEE + UInt64(client))
            let connection = HTTPClient(port: port, timeoutSeconds: 10)
            for _ in 0..<operations {
                let id = String(Int.random(in: 1...6, using: &random))
                let (target, fields): (String, [(String, String)]) = switch Int.random(in: 0..<6, using: &random) {
                case 0: ("/mailboxes/inbox", [("mode", "active"), ("selected", id), ("action", "flag")])
                case 1: ("/mailboxes/inbox", [("mode", "active"), ("selected", id), ("action", "unflag")])
                case 2: ("/messages/\(id)", [("action", Bool.random(using: &random) ? "flag" : "unflag")])
                case 3: ("/mailboxes/inbox", [("mode", "active"), ("move-up", id)])
                case 4: ("/mailboxes/inbox", [("mode", "active"), ("move-down", id)])
                default: ("/mailboxes/inbox", [("action", "move"), ("id", id), ("to", "0")])
                }
                do {
                    let response = try connection.postForm(target, fields)
                    if response.status != 303 {
                        problems.withLock { $0.append("\(target) \(fields): \(response.status) \(response.text.prefix(200))") }
                    }
                } catch {
                    problems.withLock { $0.append("\(target) \(fields): \(error)") }
                }
            }
            connection.close()
        }
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 })")

        let library = server.library
        let inbox = try #require(library[.inbox])
        #expect(inbox.ids.map(\.rawValue).sorted() == Array(1...6), "nothing lost or duplicated")
        #expect(inbox.messages.map(\.subject).sorted() == (1...6).map { "Message \($0)" }.sorted())
        #expect(library.messageCount == 6)

        // A reload shows exactly the library: order, flags, unread dots.
        let tab = server.browser()
        let page = try tab.get("/mailboxes/inbox")
        try tab.reload()
        #expect(tab.page.rowIDs == page.rowIDs)
        #expect(page.rowIDs == inbox.ids.map { Int($0.rawValue) })
        for message in inbox.messages {
            let classes = page.rowClasses(Int(message.id.rawValue))
            #expect(classes.contains("flagged") == message.isFlagged, "#\(message.id)")
            #expect(classes.contains("unread") == message.isUnread, "#\(message.id)")
        }
        #expect(ListHTML.subjects(in: page.html) == inbox.messages.map(\.subject))

        #expect(try server.app.store.integrityCheck() == "ok")
    }

    @Test func concurrentPostsToTheProgramAreAllAcknowledgedAndAllSurviveSigkill() throws {
        try expectDurablePosts(clients: Self.clients, perClient: 25)
    }

    /// More posts at once than the server has threads to wait on commits (64): the rest queue,
    /// and still every one is committed before its answer, in its client's order.
    @Test func eightyClientsPostingAtOnceAreAllAcknowledgedAndAllSurviveSigkill() throws {
        try expectDurablePosts(clients: 80, perClient: 6)
    }

    /// The same, with group commit at work on an Inbox of 100,000 messages.
    @Test func eightyClientsPostingAtOnceOnAHundredThousandMessagesAreAllKept() throws {
        try expectDurablePosts(clients: 80, perClient: 6, stored: 100_000)
    }

    private func expectDurablePosts(
        clients: Int, perClient: Int, stored: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let database = ScratchDatabase("concurrent")
        if stored > 0 { try database.seed(messages: stored) }
        var server = try RunningMailroom(database: database.path)
        let token = try HTTPClient(port: server.port).fetchFormToken()
        let statuses = SharedValue<[[Int]]>(Array(repeating: [], count: clients))
        let port = server.port
        try TestThreads.runTogether(clients) { client in
            // A guard against a hang, not a claim about speed (`make bench` has those): other
            // suites run beside this one on two cores, and a post waits for its group's sync.
            let connection = HTTPClient(port: port, timeoutSeconds: 30)
            for n in 0..<perClient {
                let status: Int
                do {
                    status = try connection.postForm(
                        "/mailboxes/inbox", [("action", "add"), ("subject", "durable-\(client)-\(n)")], token: token).status
                } catch {
                    status = -1
                }
                statuses.withLock { $0[client].append(status) }
            }
            connection.close()
        }
        for (client, answers) in statuses.withLock({ $0 }).enumerated() {
            #expect(answers == Array(repeating: 303, count: perClient), "client \(client)", sourceLocation: sourceLocation)
        }

        try server.kill()
        server = try RunningMailroom(database: database.path)
        // The posts' own search: on a big Inbox the first page would hold only some of them.
        let response = try HTTPClient(port: server.port).send("GET", "/mailboxes/inbox?q=subject%3Adurable", headers: [("Accept", "text/html")])
        #expect(response.status == 200)
        let shown = ListHTML.subjects(in: response.text)
        Self.expectEachClientsPostsInReverse(
            shown, clients: clients, perClient: perClient, prefix: "durable-", sourceLocation: sourceLocation)
        #expect(try server.stop() == 0, sourceLocation: sourceLocation)
    }

    // MARK: Helpers

    /// The Inbox holds exactly `clients × perClient` subjects `<prefix><client>-<n>`, each once, and
    /// each client's newest on top: what any one-at-a-time order of the posts gives.
    static func expectEachClientsPostsInReverse(
        _ shown: [String], clients: Int, perClient: Int, prefix: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(shown.count == clients * perClient, sourceLocation: sourceLocation)
        #expect(Set(shown).count == shown.count, "no subject twice", sourceLocation: sourceLocation)
        for client in 0..<clients {
            let mine = shown.filter { $0.hasPrefix("\(prefix)\(client)-") }
            #expect(mine == (0..<perClient).reversed().map { "\(prefix)\(client)-\($0)" }, "client \(client)",
                    sourceLocation: sourceLocation)
        }
    }
}
