/// Builds a list of nodes from a block of statements, with `if`, `switch` and `for`.
@resultBuilder
public enum HTMLBuilder {
    public static func buildExpression(_ node: Node) -> Node { node }
    public static func buildExpression(_ text: String) -> Node { .text(text) }
    public static func buildExpression(_ nodes: [Node]) -> Node { .fragment(nodes) }
    public static func buildBlock(_ nodes: Node...) -> Node { .fragment(nodes) }
    /// One component needs no fragment around it: the body of a `for` over thousands of rows is
    /// one, and an array for each row cost an allocation per row.
    public static func buildBlock(_ node: Node) -> Node { node }
    public static func buildOptional(_ node: Node?) -> Node { node ?? .empty }
    public static func buildEither(first node: Node) -> Node { node }
    public static func buildEither(second node: Node) -> Node { node }
    public static func buildArray(_ nodes: [Node]) -> Node { .fragment(nodes) }
}
