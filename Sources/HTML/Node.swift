/// A piece of an HTML document: an inspectable value that renders to bytes.
///
/// Tag and attribute names are `StaticString`, so request data can only ever become escaped
/// text or an escaped attribute value.
public struct Node: Sendable {
    enum Storage: Sendable {
        case element(StaticString, [Attribute], [Node])
        case void(StaticString, [Attribute])
        case text(String)
        case trusted(StaticString)
        case rendered([UInt8])
        case source(any RenderedSource)
        case fragment([Node])
    }

    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    /// Text, escaped when rendered.
    public static func text(_ text: String) -> Node { Node(.text(text)) }

    /// Markup written by the programmer, never by a request.
    public static func trusted(_ markup: StaticString) -> Node { Node(.trusted(markup)) }

    public static let empty = Node(.fragment([]))

    /// Markup that this module rendered earlier, spliced in without rendering it again.
    public static func rendered(_ html: RenderedHTML) -> Node { Node(.rendered(html.bytes)) }

    public static func fragment(_ nodes: [Node]) -> Node { Node(.fragment(nodes)) }

    /// An element with content.
    public static func element(
        _ name: StaticString, _ attributes: [Attribute] = [], _ children: [Node] = []
    ) -> Node {
        Node(.element(name, attributes, children))
    }

    /// An element that never has content, such as `input` or `meta`.
    public static func void(_ name: StaticString, _ attributes: [Attribute] = []) -> Node {
        Node(.void(name, attributes))
    }
}

extension Node: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self.init(.text(value))
    }
}

/// The bytes of a node rendered once, to be reused; only rendering a `Node` can make one.
public struct RenderedHTML: Sendable {
    public let bytes: [UInt8]

    public init(_ node: Node) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1_024)
        node.render(into: &buffer)
        // Kept for long (a cache of rows): exactly as large as it is, not as it grew.
        bytes = [UInt8](unsafeUninitializedCapacity: buffer.count) { copy, count in
            count = buffer.withUnsafeBufferPointer { copy.initialize(fromContentsOf: $0) }
        }
    }
}

/// Markup rendered earlier and kept elsewhere (a cache of a list's rows), written straight into
/// the page where its node stands: each piece is copied once, into the page itself.
///
/// Only `RenderedHTML` can be written, so what a source adds is still markup this module rendered.
public protocol RenderedSource: Sendable {
    func write(to writer: inout RenderedWriter)
}

/// Where a `RenderedSource` writes its pieces: the page being rendered.
public struct RenderedWriter {
    fileprivate var bytes: [UInt8]
}

extension RenderedHTML {
    /// Appends these bytes where `writer` writes.
    public func write(to writer: inout RenderedWriter) {
        bytes.withUnsafeBufferPointer { writer.bytes.append(contentsOf: $0) }
    }
}

extension Node {
    /// The pieces of `source`, written into the page when it is rendered.
    public static func rendered(from source: some RenderedSource) -> Node { Node(.source(source)) }
}

extension RenderedWriter {
    /// Lets `source` write at the end of `buffer`, which it takes over meanwhile (no copy).
    static func write(_ source: any RenderedSource, into buffer: inout [UInt8]) {
        var writer = RenderedWriter(bytes: [])
        swap(&writer.bytes, &buffer)
        source.write(to: &writer)
        swap(&writer.bytes, &buffer)
    }
}
