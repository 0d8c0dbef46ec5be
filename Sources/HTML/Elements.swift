// One function per element the pages use, so pages read like the markup they make.

public func element(
    _ name: StaticString, _ attributes: [Attribute], @HTMLBuilder _ content: () -> Node
) -> Node {
    .element(name, attributes, [content()])
}

public func html(_ attributes: Attribute..., @HTMLBuilder content: () -> Node) -> Node {
    .fragment([.trusted("<!DOCTYPE html>\n"), element("html", attributes, content)])
}

public func head(@HTMLBuilder content: () -> Node) -> Node { element("head", [], content) }
public func body(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("body", a, content) }
public func title(_ text: String) -> Node { .element("title", [], [.text(text)]) }
public func meta(_ a: Attribute...) -> Node { .void("meta", a) }
public func link(_ a: Attribute...) -> Node { .void("link", a) }
public func header(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("header", a, content) }
public func footer(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("footer", a, content) }
public func main(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("main", a, content) }
public func nav(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("nav", a, content) }
public func section(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("section", a, content) }
public func div(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("div", a, content) }
public func span(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("span", a, content) }
public func p(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("p", a, content) }
public func h1(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("h1", a, content) }
public func h2(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("h2", a, content) }
public func strong(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("strong", a, content) }
public func ul(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("ul", a, content) }
public func li(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("li", a, content) }
public func a(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("a", a, content) }
public func form(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("form", a, content) }
public func label(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("label", a, content) }
public func button(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("button", a, content) }
public func time(_ a: Attribute..., @HTMLBuilder content: () -> Node) -> Node { element("time", a, content) }
public func input(_ a: Attribute...) -> Node { .void("input", a) }

/// A textarea's content is text, so it is escaped like any other.
public func textarea(_ a: Attribute..., text: String) -> Node {
    // A leading newline in a textarea is dropped by parsers; one of our own keeps the user's.
    .element("textarea", a, [.trusted("\n"), .text(text)])
}
