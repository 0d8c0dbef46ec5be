import Glibc
@testable import MailroomNet
import Testing

/// STARTTLS to a relay whose certificate a throwaway authority signed: the chain and the name
/// are checked, a failure defers with the certificate's reason, and `.none` never asks.
@Suite struct RelayClientTLSTests {
    static func message() -> RelayMessage {
        RelayMessage(sender: "sender@example.test", recipients: ["one@example.test"], bytes: Array("Subject: Secret\n\nHush.\n".utf8))
    }

    static func configuration(
        _ peer: RelayPeer, host: String = "127.0.0.1", tls: RelayTLS, trusting authority: TestCertificateAuthority?,
        login: RelayLogin? = nil
    ) -> RelayConfiguration {
        RelayConfiguration(
            host: host, port: peer.port, tls: tls, trustedCertificates: authority?.certificate, login: login, timeoutSeconds: 10)
    }

    /// By address (checked against the certificate's IP names) and by name (SNI and DNS names).
    @Test(arguments: [("127.0.0.1", RelayTLS.require), ("localhost", RelayTLS.verify)])
    func aVerifiedRelayGetsTheMessageOverTLS(host: String, tls: RelayTLS) throws {
        let authority = try TestCertificateAuthority()
        let peer = try RelayPeer(tls: try authority.issue("relay", names: ["localhost", "127.0.0.1"]))
        let loop = try RelayTestLoop()
        let client = loop.client(Self.configuration(peer, host: host, tls: tls, trusting: authority))
        let outcome = try RelayOutcome.send(Self.message(), on: client)
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        #expect(String(decoding: try peer.data(), as: UTF8.self) == "Subject: Secret\r\n\r\nHush.\r\n.\r\n")
        let lines = try peer.linesOfSession()
        // EHLO again over TLS, since what the relay said before may have been forged.
        #expect(lines.filter { $0 == "command EHLO mailroom" }.count == 2, "\(lines)")
        let secured = try #require(lines.firstIndex(of: "tls"), "\(lines)")
        let mail = try #require(lines.firstIndex { $0.hasPrefix("command MAIL") }, "\(lines)")
        #expect(secured < mail)
    }

    @Test(arguments: [RelayTLS.require, RelayTLS.verify])
    func aCertificateNoTrustedAuthoritySignedDefers(tls: RelayTLS) throws {
        let authority = try TestCertificateAuthority()
        let peer = try RelayPeer(tls: try authority.issue("relay", names: ["localhost", "127.0.0.1"]))
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: tls, trusting: nil)))
        #expect(outcome.replies.count == 1)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.hasPrefix("The relay's certificate did not verify: ") },
                "\(outcome.replies)")
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("command MAIL") }, "\(lines)")
    }

    @Test func aCertificateForAnotherNameDefers() throws {
        let authority = try TestCertificateAuthority()
        let peer = try RelayPeer(tls: try authority.issue("elsewhere", names: ["mail.example.test"]))
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .verify, trusting: authority)))
        #expect(outcome.replies.count == 1)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.contains("certificate") && $0.text.contains("mismatch") },
                "\(outcome.replies)")
    }

    @Test func tlsNoneNeverAsksForSTARTTLS() throws {
        let authority = try TestCertificateAuthority()
        let peer = try RelayPeer(tls: try authority.issue("relay", names: ["127.0.0.1"]))
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .none, trusting: nil)))
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains("command STARTTLS") && !lines.contains("tls"), "\(lines)")
    }

    @Test func tlsRequiredFromARelayThatDoesNotOfferItDefers() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(Self.configuration(peer, tls: .require, trusting: nil)))
        #expect(outcome.replies == [.deferred("The relay does not offer STARTTLS, and TLS is required.")])
        let lines = try peer.linesOfSession()
        #expect(!lines.contains { $0.hasPrefix("command MAIL") }, "\(lines)")
    }

    @Test func theLoginGoesOnlyOverTLS() throws {
        let authority = try TestCertificateAuthority()
        let peer = try RelayPeer(ehlo: ["AUTH PLAIN LOGIN"], tls: try authority.issue("relay", names: ["127.0.0.1"]))
        let loop = try RelayTestLoop()
        let login = RelayLogin(user: "relay-user", password: "secret")
        let client = loop.client(Self.configuration(peer, tls: .require, trusting: authority, login: login))
        let outcome = try RelayOutcome.send(Self.message(), on: client)
        #expect(outcome.replies == [.accepted("250 2.0.0 Ok: queued as PEER1")])
        let lines = try peer.linesOfSession()
        let secured = try #require(lines.firstIndex(of: "tls"), "\(lines)")
        let auth = try #require(lines.firstIndex(of: "auth PLAIN relay-user secret"), "\(lines)")
        #expect(secured < auth)
    }

    @Test func aMissingFileOfTrustedCertificatesDefersWithItsName() throws {
        let peer = try RelayPeer()
        let loop = try RelayTestLoop()
        var configuration = Self.configuration(peer, tls: .verify, trusting: nil)
        configuration.trustedCertificates = "/nonexistent/ca.pem"
        let outcome = try RelayOutcome.send(Self.message(), on: loop.client(configuration))
        #expect(outcome.replies.count == 1)
        #expect(outcome.replies.allSatisfy { $0.isDeferred && $0.text.hasPrefix("TLS: cannot read the trusted certificates /nonexistent/ca.pem") },
                "\(outcome.replies)")
    }
}
