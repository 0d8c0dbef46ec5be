import Glibc

/// The optional password, from a file's first line or the MAILROOM_PASSWORD variable.
enum Password {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func configured(file: String?) throws(Problem) -> String? {
        try secret(file: file, variable: "MAILROOM_PASSWORD", naming: "password file")
    }

    /// The API token scripts send as `Authorization: Bearer …`: `--api-token-file`'s first line
    /// or MAILROOM_API_TOKEN.
    static func apiToken(file: String?) throws(Problem) -> String? {
        try secret(file: file, variable: "MAILROOM_API_TOKEN", naming: "API token file")
    }

    /// A file's first line, or else the variable's value; nil when neither gives one.
    private static func secret(file: String?, variable: String, naming: String) throws(Problem) -> String? {
        if let file {
            guard let handle = fopen(file, "r") else {
                throw Problem(description: "cannot read the \(naming) \(file): \(String(cString: strerror(errno)))")
            }
            defer { fclose(handle) }
            var line: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(line) }
            guard getline(&line, &capacity, handle) > 0, let line else {
                throw Problem(description: "the \(naming) \(file) is empty")
            }
            let secret = String(cString: line).trimmingTrailingNewlines
            guard !secret.isEmpty else { throw Problem(description: "the \(naming) \(file) is empty") }
            return secret
        }
        if let value = getenv(variable) {
            let secret = String(cString: value)
            return secret.isEmpty ? nil : secret
        }
        return nil
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var result = self
        while let last = result.last, last.isNewline { result.removeLast() }
        return result
    }
}

/// SMTP logins from a file of `user:password` lines; blank lines and lines starting with # are skipped.
enum MailPasswords {
    static func read(file: String) throws(Password.Problem) -> [String: String] {
        guard let handle = fopen(file, "r") else {
            throw Password.Problem(description: "cannot read the SMTP password file \(file): \(String(cString: strerror(errno)))")
        }
        defer { fclose(handle) }
        var logins: [String: String] = [:]
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var number = 0
        while getline(&line, &capacity, handle) > 0, let line {
            number += 1
            let text = String(cString: line).trimmingTrailingNewlines
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                throw Password.Problem(description: "\(file) line \(number): expected user:password")
            }
            logins[String(text[..<colon])] = String(text[text.index(after: colon)...])
        }
        guard !logins.isEmpty else { throw Password.Problem(description: "the SMTP password file \(file) has no logins") }
        return logins
    }
}
