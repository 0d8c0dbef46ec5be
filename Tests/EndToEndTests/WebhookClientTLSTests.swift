import Glibc
@testable import MailroomNet
import Testing

/// https to a Python receiver whose certificate a throwaway authority signed: the chain and the
/// name are checked, and a failure is retried with the certificate's reason.
@Suite struct WebhookClientTLSTests {
    static let body = Array(#"{"event":"mail.received","id":7}"#.utf8)

    static func delivery(_ url: String) throws -> WebhookDelivery {
        WebhookDelivery(target: try #require(WebhookTarget(url)), body: body, headers: [("X-Mailroom-Delivery", "7")])
    }

    /// By address (checked against the certificate's IP names) and by name (SNI and DNS names).
    @Test(arguments: ["127.0.0.1", "localhost"])
    func aVerifiedReceiverGetsTheDelivery(host: String) throws {
        let authority = try TestCertificateAuthority()
        let receiver = try WebhookReceiver(tls: try authority.issue("receiver", names: ["localhost", "127.0.0.1"]))
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, trusting: authority.certificate)
        let posting = try WebhookPosting.post(try Self.delivery("https://\(host):\(receiver.port)/secure"), on: client)
        #expect(posting.result == .delivered(status: 200))
        let request = try receiver.firstRequest()
        #expect(request.headText.hasPrefix("POST /secure HTTP/1.1\r\nHost: \(host):\(receiver.port)\r\n"), "\(request.headText)")
        #expect(request.body == Self.body)
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aCertificateNoTrustedAuthoritySignedIsRetried() throws {
        let authority = try TestCertificateAuthority()
        let receiver = try WebhookReceiver(tls: try authority.issue("receiver", names: ["127.0.0.1"]))
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop)
        let posting = try WebhookPosting.post(try Self.delivery("https://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result.isRetry)
        #expect(posting.result.reason.hasPrefix("The certificate of 127.0.0.1:\(receiver.port) did not verify: "), "\(posting.result)")
        _ = try receiver.waitFor("tls-failed")
        #expect(!receiver.lines.contains { $0.hasPrefix("request ") })
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aCertificateForAnotherNameIsRetried() throws {
        let authority = try TestCertificateAuthority()
        let receiver = try WebhookReceiver(tls: try authority.issue("elsewhere", names: ["hooks.example.test"]))
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, trusting: authority.certificate)
        let posting = try WebhookPosting.post(try Self.delivery("https://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result.isRetry)
        #expect(posting.result.reason.contains("certificate") && posting.result.reason.contains("mismatch"), "\(posting.result)")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func plainHTTPToATLSReceiverIsRetried() throws {
        let authority = try TestCertificateAuthority()
        let receiver = try WebhookReceiver(tls: try authority.issue("receiver", names: ["127.0.0.1"]))
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, timeoutSeconds: 2)
        let posting = try WebhookPosting.post(try Self.delivery("http://127.0.0.1:\(receiver.port)/"), on: client)
        #expect(posting.result.isRetry, "\(posting.result)")
        try WebhookPosting.waitUntilIdle(client)
    }

    @Test func aMissingFileOfTrustedCertificatesIsRetriedWithItsName() throws {
        let loop = try RelayTestLoop()
        let client = WebhookClient.onTestLoop(loop, trusting: "/nonexistent/ca.pem")
        let posting = try WebhookPosting.post(try Self.delivery("https://127.0.0.1:1/"), on: client)
        #expect(posting.result.reason.hasPrefix("TLS: cannot read the trusted certificates /nonexistent/ca.pem"), "\(posting.result)")
        try WebhookPosting.waitUntilIdle(client)
    }
}
