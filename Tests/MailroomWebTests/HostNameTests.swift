import Testing
@testable import MailroomWeb

/// The Host header's name part, as the allow-list compares it.
@Suite struct HostNameTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1"),
        ("localhost", "localhost"),
        ("Example.LAN:8080", "example.lan"),
        ("[::1]:8080", "::1"),
        ("[FE80::1]", "fe80::1"),
        ("[::1", "[::1"),
        ("ÉCOLE.lan:80", "école.lan"),
        (":8080", ""),
        ("", ""),
    ])
    func theNameIsTheHostWithoutPortInLowerCase(host: String, name: String) {
        #expect(SecurityPolicy.hostName(host) == name)
    }
}
