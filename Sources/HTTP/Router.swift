/// A route table: path patterns, the methods each answers, and what else a door wants to know
/// of a route (`Info`: whether it needs a password, say). Everything about a path that is not a
/// handler follows from the table: a path no pattern matches is not found, and a method a
/// matching pattern does not take is refused with the `Allow` its methods make.
///
/// A pattern is a path whose segments are either literal (`mailboxes`) or a named capture
/// (`:slug`), which matches any one non-empty segment. The first pattern in the table that
/// matches a path owns it, so a literal meant to win over a capture goes first.
///
/// Matching is inlinable so that each door's table is specialized where it is used: a generic
/// type from another module otherwise looks up type metadata on every request.
public struct Router<Context, Info: Sendable>: Sendable {
    public typealias Handler = @Sendable (Context, Request, RouteParameters) throws(HTTPError) -> Response

    /// One pattern, its methods and its `Info`.
    public struct Route: Sendable {
        public let pattern: String
        public let info: Info
        @usableFromInline let segments: [Segment]
        @usableFromInline let handlers: [(method: Method, handler: Handler)]
        /// The methods this route takes, as an `Allow` field says them (GET brings HEAD).
        public let allow: String

        /// The handler for `method`: a GET's answers HEAD as well (the server drops the body).
        @inlinable
        public func handler(for method: Method) -> Handler? {
            let wanted = method == .head ? Method.get : method
            return handlers.first { $0.method == wanted }?.handler
        }

        /// The error for a method this route does not take.
        public func methodNotAllowed(_ message: String = "This address does not accept that method.") -> HTTPError {
            HTTPError(.methodNotAllowed, message, headers: ["Allow": allow])
        }
    }

    /// Where a request's path leads: the route and the segments its captures matched.
    public struct Match: Sendable {
        public let route: Route
        public let parameters: RouteParameters

        @usableFromInline
        init(route: Route, parameters: RouteParameters) {
            self.route = route
            self.parameters = parameters
        }
    }

    @usableFromInline
    enum Segment: Sendable, Equatable {
        case literal(String)
        case capture(String)
    }

    public private(set) var routes: [Route] {
        get { table }
        set { table = newValue }
    }
    @usableFromInline var table: [Route] = []

    public init() {}

    /// Adds `pattern` with a handler per method. Two routes with the same pattern are a mistake
    /// in the table, caught by its tests.
    public mutating func add(_ pattern: String, info: Info, _ handlers: KeyValuePairs<Method, Handler>) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { text in
            text.first == ":" ? Segment.capture(String(text.dropFirst())) : Segment.literal(String(text))
        }
        var methods: [Method] = []
        for (method, _) in handlers {
            methods.append(method)
            if method == .get && !handlers.contains(where: { $0.key == .head }) { methods.append(.head) }
        }
        routes.append(Route(
            pattern: pattern, info: info, segments: segments,
            handlers: handlers.map { (method: $0.key, handler: $0.value) },
            allow: methods.map(\.name).joined(separator: ", ")))
    }

    /// The first route whose pattern matches `path` (the path alone: no query), if any.
    @inlinable
    public func match(_ path: String) -> Match? {
        let given = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        search: for route in table where route.segments.count == given.count {
            var captured: [(String, Substring)] = []
            for (segment, text) in zip(route.segments, given) {
                switch segment {
                case .literal(let word):
                    guard text == word else { continue search }
                case .capture(let name):
                    guard !text.isEmpty else { continue search }
                    captured.append((name, text))
                }
            }
            return Match(route: route, parameters: RouteParameters(captured))
        }
        return nil
    }
}

/// The path segments a route's captures matched, by name.
public struct RouteParameters: Sendable {
    @usableFromInline let values: [(name: String, value: Substring)]

    @usableFromInline
    init(_ values: [(String, Substring)]) {
        self.values = values.map { (name: $0.0, value: $0.1) }
    }

    /// The segment captured as `:name`; empty when the route has no such capture (a mistake
    /// in the table, caught by its tests).
    public subscript(_ name: String) -> Substring {
        values.first { $0.name == name }?.value ?? ""
    }
}
