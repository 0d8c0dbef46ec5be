@testable import MailroomNet
import Testing

/// Webhook URLs taken apart, the ones refused, and the headers a delivery may carry.
@Suite struct WebhookTargetTests {
    @Test(arguments: [
        ("http://example.com", "http", "example.com", 80, "/", "example.com"),
        ("https://Hooks.Example.COM:8443/in?x=1&y=2#frag", "https", "hooks.example.com", 8443, "/in?x=1&y=2", "hooks.example.com:8443"),
        ("HTTP://127.0.0.1:8080?token=abc", "http", "127.0.0.1", 8080, "/?token=abc", "127.0.0.1:8080"),
        ("https://[::1]/a", "https", "::1", 443, "/a", "[::1]"),
        ("https://[2001:db8::7]:9000/", "https", "2001:db8::7", 9000, "/", "[2001:db8::7]:9000"),
        ("http://example.com:/x", "http", "example.com", 80, "/x", "example.com"),
        ("https://example.com:443/x", "https", "example.com", 443, "/x", "example.com"),
        ("http://example.com/grüße?q=é", "http", "example.com", 80, "/gr%C3%BC%C3%9Fe?q=%C3%A9", "example.com"),
        ("http://example.com#only-a-fragment", "http", "example.com", 80, "/", "example.com"),
    ])
    func aURLIsTakenApart(url: String, scheme: String, host: String, port: Int, path: String, hostHeader: String) throws {
        let target = try #require(WebhookTarget(url))
        #expect(target.url == url)
        #expect(target.scheme == scheme)
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.path == path)
        #expect(target.hostHeader == hostHeader)
    }

    @Test(arguments: [
        "", "example.com/hook", "//example.com/hook", "ftp://example.com/", "mailto:someone@example.com",
        "http://", "http:///path", "http://:80/", "http://user:secret@example.com/", "http://user@example.com/",
        "http://example.com:0/", "http://example.com:65536/", "http://example.com:80x/", "http://example.com:-1/",
        "http://a:1:2/", "http://[::1/", "http://[not-an-address]/", "http://[::1]x/", "http://exa mple.com/",
        "http://example.com/a b", "http://example.com/\r\nX: y", " http://example.com/", "http://exa%6Dple.com/",
        "http://bücher.example/",
    ])
    func aURLThatIsNotAUsableWebhookIsRefused(url: String) {
        #expect(WebhookTarget(url) == nil)
    }

    @Test func theClientWritesHostTypeAndAgentThenTheCallersHeadersThenClose() throws {
        let target = try #require(WebhookTarget("https://hooks.example.test/in"))
        let delivery = WebhookDelivery(target: target, body: [], headers: [("X-Mailroom-Delivery", "9"), ("X-Other", "a\tb")])
        #expect(delivery.headerProblem == nil)
        let names = delivery.requestHeaders.map { "\($0.0): \($0.1)" }
        #expect(names == [
            "Host: hooks.example.test", "Content-Type: application/json", "User-Agent: Mailroom",
            "X-Mailroom-Delivery: 9", "X-Other: a\tb", "Connection: close",
        ])
    }

    @Test func aCallersContentTypeOrAgentReplacesTheClientsOwn() throws {
        let target = try #require(WebhookTarget("http://hooks.example.test:8080/in"))
        let delivery = WebhookDelivery(
            target: target, body: [], headers: [("content-type", "application/cloudevents+json"), ("User-Agent", "Mailroom/2")])
        #expect(delivery.requestHeaders.map { "\($0.0): \($0.1)" } == [
            "Host: hooks.example.test:8080", "content-type: application/cloudevents+json", "User-Agent: Mailroom/2",
            "Connection: close",
        ])
    }

    @Test(arguments: [
        ("X-Evil", "a\r\nInjected: yes"), ("X-Evil", "a\rb"), ("X-Evil", "a\nb"), ("X-Evil", "a\u{0}b"),
        ("X-Evil", "a\u{7F}b"), ("Bad Name", "v"), ("Bad:Name", "v"), ("", "v"), ("Bad\r\nName", "v"),
        ("Host", "elsewhere.test"), ("content-length", "0"), ("Transfer-Encoding", "chunked"), ("Connection", "keep-alive"),
    ])
    func aHeaderThatCouldReshapeTheRequestIsAProblem(name: String, value: String) throws {
        let target = try #require(WebhookTarget("http://hooks.example.test/"))
        let delivery = WebhookDelivery(target: target, body: [], headers: [(name, value)])
        let problem = try #require(delivery.headerProblem)
        #expect(!problem.contains("\r") && !problem.contains("\n"))
    }
}
