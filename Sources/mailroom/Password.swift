import Glibc

/// The optional password, from a file's first line or the MAILROOM_PASSWORD variable.
enum Password {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func configured(file: String?) throws(Problem) -> String? {
        if let file {
            guard let handle = fopen(file, "r") else {
                throw Problem(description: "cannot read the password file \(file): \(String(cString: strerror(errno)))")
            }
            defer { fclose(handle) }
            var line: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(line) }
            guard getline(&line, &capacity, handle) > 0, let line else {
                throw Problem(description: "the password file \(file) is empty")
            }
            let password = String(cString: line).trimmingTrailingNewlines
            guard !password.isEmpty else { throw Problem(description: "the password file \(file) is empty") }
            return password
        }
        if let value = getenv("MAILROOM_PASSWORD") {
            let password = String(cString: value)
            return password.isEmpty ? nil : password
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
