import Glibc

/// Where `mailroom sendmail` finds Mailroom when no `--server` is given, the way the installed
/// service is told where to listen, first found wins:
/// 1. `--server HOST:PORT`;
/// 2. `MAILROOM_SMTP` (HOST:PORT);
/// 3. the server's own flags `--smtp-port`, `--smtp-host` and `--host` in `MAILROOM_ARGS`, from the
///    environment, else from the file the service reads (`MAILROOM_DEFAULTS_FILE`, else
///    /etc/default/mailroom), a wildcard address (0.0.0.0, ::) standing for 127.0.0.1;
/// 4. 127.0.0.1:2525.
enum ServerAddress {
    static let defaultsFile = "/etc/default/mailroom"

    static func find(given: String?) throws(Sendmail.Failure) -> (host: String, port: Int) {
        if let given { return try Sendmail.Request.serverAddress(given) }
        if let smtp = getenv("MAILROOM_SMTP"), smtp.pointee != 0 {
            return try Sendmail.Request.serverAddress(String(cString: smtp))
        }
        if let arguments = getenv("MAILROOM_ARGS") {
            return try fromServerArguments(String(cString: arguments), source: "MAILROOM_ARGS")
        }
        let file = getenv("MAILROOM_DEFAULTS_FILE").map { String(cString: $0) } ?? defaultsFile
        if let arguments = serverArguments(inFile: file) {
            return try fromServerArguments(arguments, source: "MAILROOM_ARGS in \(file)")
        }
        return ("127.0.0.1", 2525)
    }

    /// Where a Mailroom started with `arguments` takes mail, as `Options` reads those flags.
    static func fromServerArguments(_ arguments: String, source: String) throws(Sendmail.Failure) -> (host: String, port: Int) {
        // systemd splits an unquoted $MAILROOM_ARGS at white space, and so does this.
        var words = arguments.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)[...]
        var (host, smtpHost, port) = ("127.0.0.1", nil as String?, 2525)
        while let word = words.popFirst() {
            switch word {
            case "--host": host = words.popFirst() ?? host
            case "--smtp-host": smtpHost = words.popFirst()
            case "--smtp-port":
                let text = words.popFirst() ?? ""
                guard let number = Int(text), (0...65535).contains(number) else {
                    throw Sendmail.Failure(message: "\(source): --smtp-port must be a port, not '\(text)'", code: Sendmail.usage)
                }
                port = number
            default: break
            }
        }
        guard port != 0 else {
            throw Sendmail.Failure(message: "Mailroom takes no mail: \(source) has --smtp-port 0", code: Sendmail.unavailable)
        }
        let listening = smtpHost ?? host
        return (["0.0.0.0", "::", "[::]", ""].contains(listening) ? "127.0.0.1" : listening, port)
    }

    /// The value of the last `MAILROOM_ARGS=` line of an environment file as systemd reads it
    /// (`#` comments, the value optionally in quotes); nil when the file cannot be read or has none.
    static func serverArguments(inFile path: String) -> String? {
        guard let handle = fopen(path, "r") else { return nil }
        defer { fclose(handle) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var found: String?
        while getline(&line, &capacity, handle) > 0, let line {
            let text = String(cString: line).trimmingSpaces.trimmingTrailingNewlines.trimmingSpaces
            guard text.hasPrefix("MAILROOM_ARGS=") else { continue }
            var value = Substring(text.dropFirst("MAILROOM_ARGS=".count))
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
            }
            found = String(value)
        }
        return found
    }
}
