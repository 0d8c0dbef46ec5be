import HTTP
import MailroomCore

/// What the web door needs to know of a route besides its handlers.
struct Access: Sendable {
    /// Behind the password, when Mailroom has one.
    var needsSignIn = true
    /// Whether a script may pass the password gate with the API token instead of signing in.
    var takesToken = false

    static let signedIn = Access()
    static let open = Access(needsSignIn: false)
    static let signedInOrToken = Access(takesToken: true)
}

extension MailroomApp {
    typealias Routes = Router<MailroomApp, Access>

    /// Every page and form of the web door. A path not here is a static file from `Public/` or
    /// not found; a method a route does not list is refused with its `Allow`.
    static let routes: Routes = {
        var routes = Routes()
        routes.add("/", info: .signedIn, [.get: { _, _, _ in .redirect(.found, to: Paths.inbox) }])
        routes.add("/signin", info: .open, [
            .get: { app, request, _ in app.showSignIn(request) },
            .post: { app, request, _ throws(HTTPError) in try app.signInPost(request) },
        ])
        routes.add("/signout", info: .signedIn, [.post: { app, request, _ throws(HTTPError) in try app.signOutPost(request) }])
        routes.add("/healthz", info: .open, [.get: { app, _, _ in app.health() }])
        routes.add("/metrics", info: .signedInOrToken, [.get: { app, _, _ in app.metricsPage() }])
        routes.add("/events", info: .signedIn, [.get: { _, _, _ in MailroomApp.eventStream }])

        // Mailboxes and their lists (Mailboxes/, Lists/).
        routes.add("/mailboxes", info: .signedIn, [
            .get: { app, request, _ in app.showMailboxes(request) },
            .post: { app, request, _ throws(HTTPError) in try app.changeMailboxes(request) },
        ])
        routes.add("/mailboxes/trash/empty", info: .signedIn, [
            .get: { app, _, _ throws(HTTPError) in try app.showEmptyTrash() },
            .post: { app, request, _ throws(HTTPError) in try app.emptyTrash(request) },
        ])
        routes.add("/mailboxes/:slug", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in
                try app.showList(try app.mailboxID(parameters["slug"]), request: request)
            },
            .post: { app, request, parameters throws(HTTPError) in
                try app.changeList(try app.mailboxID(parameters["slug"]), request: request)
            },
        ])
        routes.add("/mailboxes/:slug/release", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in try app.showRelease(try app.mailboxID(parameters["slug"]), request: request) },
            .post: { app, request, parameters throws(HTTPError) in try app.release(try app.mailboxID(parameters["slug"]), request: request) },
        ])
        routes.add("/mailboxes/:slug/delete", info: .signedIn, [
            .get: { app, _, parameters throws(HTTPError) in try app.showDeleteMailbox(try app.mailboxID(parameters["slug"])) },
            .post: { app, request, parameters throws(HTTPError) in
                try app.deleteMailbox(try app.mailboxID(parameters["slug"]), request: request)
            },
        ])

        // Messages (Messages/).
        routes.add("/messages/:id", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in try app.showMessage(try messageID(parameters), request: request) },
            .post: { app, request, parameters throws(HTTPError) in
                try app.changeMessage(try messageID(parameters), request: request)
            },
        ])
        routes.add("/messages/:id/forward", info: .signedIn, [
            .get: { app, _, parameters throws(HTTPError) in try app.showForward(try messageID(parameters)) },
            .post: { app, request, parameters throws(HTTPError) in try app.forward(try messageID(parameters), request: request) },
        ])
        routes.add("/messages/:id/html", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in try app.showMailHTML(try messageID(parameters), request: request) },
        ])
        routes.add("/messages/:id/raw", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in
                try app.downloadRawMail(try messageID(parameters), request: request)
            },
        ])
        routes.add("/messages/:id/parts/:part", info: .signedIn, [
            .get: { app, request, parameters throws(HTTPError) in
                let part = parameters["part"]
                guard let id = MessageID(String(parameters["id"])), let number = Int(part), number >= 0, String(number) == part else {
                    throw HTTPError(.notFound, "There is no attachment at this address.")
                }
                return try app.downloadMailPart(id, part: number, request: request)
            },
        ])
        return routes
    }()

    private static func messageID(_ parameters: RouteParameters) throws(HTTPError) -> MessageID {
        let text = parameters["id"]
        guard let id = MessageID(String(text)) else { throw HTTPError(.notFound, "There is no message “\(text)”.") }
        return id
    }

    /// The mailbox a path names, when it exists.
    func mailboxID(_ slug: Substring) throws(HTTPError) -> MailboxID {
        guard let id = MailboxID(slug: slug), try mailboxes()[id] != nil else {
            throw HTTPError(.notFound, "There is no mailbox “\(slug)”.")
        }
        return id
    }
}
