import HTML

/// The document around every page: head, skip link and the stylesheet.
enum Layout {
    /// `contentBytes` is asked once the content is built: how many bytes of it are known already
    /// (a list's cached rows), so the page's buffer can be made large enough at once.
    static func document(
        title pageTitle: String, bodyClass: String, contentBytes: () -> Int = { 0 }, @HTMLBuilder content: () -> Node
    ) -> [UInt8] {
        let page = html(.lang("en")) {
            head {
                meta(Attribute("charset", "utf-8"))
                meta(.name("viewport"), .content("width=device-width, initial-scale=1"))
                meta(.name("color-scheme"), .content("light dark"))
                title(pageTitle)
                link(.rel("stylesheet"), .href(Paths.stylesheet))
                // The optional script: every page works the same without it (see Public/app.js).
                element("script", [Attribute("src", Paths.script), .boolean("defer")]) { "" }
            }
            body(.class(bodyClass)) {
                a(.class("skip-link"), .href("#content")) { "Skip to content" }
                content()
            }
        }
        return page.bytes(reservingCapacity: 16_384 + contentBytes())
    }
}
