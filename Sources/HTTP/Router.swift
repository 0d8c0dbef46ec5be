#if canImport(Glibc)
import Glibc
#endif
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

    /// Every route, in the order they were added (only `add` adds them).
    public var routes: [Route] { table }
    @usableFromInline var table: [Route] = []
    /// The indexes of the routes with each number of segments, in table order, split by their
    /// first segment: a path is compared only with the patterns that begin with its first
    /// segment or with a capture, and have as many segments as it has.
    @usableFromInline var bySegmentCount: [Candidates] = []

    @usableFromInline
    struct Candidates: Sendable {
        @usableFromInline var byFirstSegment: [String: [Int]] = [:]
        @usableFromInline var capturingFirst: [Int] = []
    }

    private mutating func file(_ index: Int) {
        let segments = table[index].segments
        while bySegmentCount.count <= segments.count { bySegmentCount.append(Candidates()) }
        switch segments.first {
        case .literal(let word): bySegmentCount[segments.count].byFirstSegment[word, default: []].append(index)
        case .capture, nil: bySegmentCount[segments.count].capturingFirst.append(index)
        }
    }

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
        table.append(Route(
            pattern: pattern, info: info, segments: segments,
            handlers: handlers.map { (method: $0.key, handler: $0.value) },
            allow: methods.map(\.name).joined(separator: ", ")))
        file(table.count - 1)
    }

    /// The first route whose pattern matches `path` (the path alone: no query), if any.
    /// Runs on every request: the path is walked in place, and only the patterns with as many
    /// segments as it has are tried.
    @inlinable
    public func match(_ path: String) -> Match? {
        let slash = UInt8(ascii: "/")
        var count = 0
        var firstEnd = path.utf8.endIndex
        for index in path.utf8.indices where path.utf8[index] == slash {
            count += 1
            if count == 2 { firstEnd = index }
        }
        guard count < bySegmentCount.count, !path.isEmpty else { return nil }
        let candidates = bySegmentCount[count]
        let first = String(path[path.utf8.index(after: path.utf8.startIndex)..<firstEnd])
        let literal = candidates.byFirstSegment[first] ?? []
        // The two lists in table order, as if they were one.
        var (l, c) = (0, 0)
        while l < literal.count || c < candidates.capturingFirst.count {
            let index: Int
            if c == candidates.capturingFirst.count || (l < literal.count && literal[l] < candidates.capturingFirst[c]) {
                index = literal[l]
                l += 1
            } else {
                index = candidates.capturingFirst[c]
                c += 1
            }
            if let parameters = Self.captures(of: table[index].segments, in: path) {
                return Match(route: table[index], parameters: parameters)
            }
        }
        return nil
    }

    /// What the captures of `segments` take from `path` when the path fits them (it has as
    /// many segments; `path` starts with "/"), or nil when it does not fit. Compared as bytes;
    /// the captured segments are taken in a second walk, only from a path that fits.
    @inlinable
    static func captures(of segments: [Segment], in path: String) -> RouteParameters? {
        var path = path
        var captureCount = 0
        let fits = path.withUTF8 { bytes -> Bool in
            var start = 0
            for segment in segments {
                start += 1
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
                switch segment {
                case .literal(var word):
                    let same = word.withUTF8 { word in
                        word.count == end - start && (word.isEmpty || memcmp(word.baseAddress!, bytes.baseAddress! + start, word.count) == 0)
                    }
                    guard same else { return false }
                case .capture:
                    guard start != end else { return false }
                    captureCount += 1
                }
                start = end
            }
            return true
        }
        guard fits else { return nil }
        guard captureCount > 0 else { return RouteParameters([]) }
        var values: [(name: String, value: Substring)] = []
        values.reserveCapacity(captureCount)
        let utf8 = path.utf8
        var start = utf8.startIndex
        for segment in segments {
            start = utf8.index(after: start)
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            if case .capture(let name) = segment { values.append((name: name, value: path[start..<end])) }
            start = end
        }
        return RouteParameters(values)
    }
}

/// The path segments a route's captures matched, by name.
public struct RouteParameters: Sendable {
    @usableFromInline let values: [(name: String, value: Substring)]

    @usableFromInline
    init(_ values: [(name: String, value: Substring)]) {
        self.values = values
    }

    /// The segment captured as `:name`; empty when the route has no such capture (a mistake
    /// in the table, caught by its tests).
    public subscript(_ name: String) -> Substring {
        values.first { $0.name == name }?.value ?? ""
    }
}
