import Glibc

/// A throwaway certificate authority made with the openssl program, and server certificates it
/// signs, all in a directory of their own that goes with it.
final class TestCertificateAuthority {
    let directory: String
    var certificate: String { directory + "/ca.pem" }
    private var files = ["ca.pem", "ca.key", "ca.srl"]

    init() throws {
        var template = Array("/tmp/mailroom-relay-ca-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(errno)") }
        directory = String(cString: made)
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Mailroom Relay Test CA",
            "-keyout", directory + "/ca.key", "-out", directory + "/ca.pem",
        ])
    }

    deinit {
        for file in files { unlink(directory + "/" + file) }
        rmdir(directory)
    }

    /// A certificate and key for a server called `names` (DNS names and IP addresses, as
    /// subject alternative names), signed by this authority.
    func issue(_ label: String, names: [String]) throws -> (certificate: String, key: String) {
        let path = { (suffix: String) in "\(self.directory)/\(label).\(suffix)" }
        files += ["key", "csr", "pem", "ext"].map { "\(label).\($0)" }
        let alternatives = names.map { name in
            name.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? "IP:\(name)" : "DNS:\(name)"
        }
        let text = "subjectAltName=\(alternatives.joined(separator: ","))\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        guard let file = fopen(path("ext"), "w") else { throw TestFailure("cannot write \(path("ext"))") }
        fputs(text, file)
        fclose(file)
        try Self.openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(names.first ?? label)",
            "-keyout", path("key"), "-out", path("csr"),
        ])
        try Self.openssl([
            "x509", "-req", "-in", path("csr"), "-CA", certificate, "-CAkey", directory + "/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", path("ext"), "-out", path("pem"),
        ])
        return (path("pem"), path("key"))
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = try ChildProcess(executable: "/usr/bin/openssl", arguments: arguments)
        let code = try process.waitForExit(within: 30)
        guard code == 0 else { throw TestFailure("openssl \(arguments[0]) exited with \(code): \(process.errorText)") }
    }
}
