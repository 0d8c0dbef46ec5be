import HTML

/// The document around every page: head, skip link and the stylesheet.
enum Layout {
    static func document(title pageTitle: String, bodyClass: String, @HTMLBuilder content: () -> Node) -> [UInt8] {
        html(.lang("en")) {
            head {
                meta(Attribute("charset", "utf-8"))
                meta(.name("viewport"), .content("width=device-width, initial-scale=1"))
                meta(.name("color-scheme"), .content("light dark"))
                title(pageTitle)
                link(.rel("stylesheet"), .href(Paths.stylesheet))
            }
            body(.class(bodyClass)) {
                a(.class("skip-link"), .href("#content")) { "Skip to content" }
                content()
            }
        }.bytes
    }
}
