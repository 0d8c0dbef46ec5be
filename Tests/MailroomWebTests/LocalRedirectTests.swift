import HTTP
@testable import MailroomWeb
import Testing

/// Every redirect stays on this site, as a browser's URL parser reads the target.
struct LocalRedirectTests {
    /// Targets that a browser resolves to another host, a script, or that carry bytes no path of ours has.
    static let hostile = [
        "https://evil.example/", "//evil.example/x", "javascript:alert(1)", "evil.example", "",
        "/\\evil.example", "\\/evil.example", "\\\\evil.example", "/x\\..\\..\\\\evil.example",
        "/\t/evil.example/x", "/\n/evil.example", "/\r/evil.example", "\t//evil.example", " //evil.example",
        "/x\r\nSet-Cookie: injected=1", "/x\u{0}", "/x\u{1b}[31m", "/x\u{7f}",
        "/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example", "/%09/evil.example", "/%0d%0aSet-Cookie:%20a=1",
        "/%252F%252Fevil.example", "/%25252F/evil.example", "/%2525252F/evil.example",
    ]

    static let local = [
        "/mailboxes/inbox", "/mailboxes/archive?mode=active&selected=1", "/messages/3?keep=unread",
        "/mailboxes/inbox?q=from%3Aann%40example.test+is%3Aunread", "/", "/mailboxes/caf%C3%A9", "/100%",
    ]

    @Test(arguments: hostile)
    func aHostileTargetIsNotLocal(target: String) {
        #expect(!Paths.isLocal(target))
        #expect(Paths.local(target) == Paths.inbox)
    }

    @Test(arguments: local)
    func aPathOfOursIsKept(target: String) {
        #expect(Paths.isLocal(target))
        #expect(Paths.local(target) == target)
    }

    @Test func noTargetIsTheInbox() {
        #expect(Paths.local(nil) == Paths.inbox)
    }

    @Test(arguments: hostile)
    func anyRedirectThatLeavesTheSiteGoesToTheInboxInstead(target: String) {
        var response = Response.seeOther(target)
        Paths.keepLocal(&response)
        if !response.isRefusal { #expect(response.headers["Location"] == Paths.inbox) }
        #expect(response.headers.values(for: "Location").allSatisfy(Paths.isLocal))
    }
}
