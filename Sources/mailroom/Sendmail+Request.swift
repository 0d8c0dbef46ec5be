import Glibc

extension Sendmail {
    /// What the command line asks for: recipients, sender, server and login.
    struct Request {
        var recipients: [String] = []
        var recipientsFromHeaders = false
        var sender: String
        var fullName: String?
        var ignoreDots = false
        var server = (host: "127.0.0.1", port: 2525)
        /// The user and password for AUTH, used when Mailroom offers it.
        var login: (user: String, password: String)?

        static func parse(_ arguments: [String]) throws(Failure) -> Request {
            var request = Request(sender: defaultSender())
            var serverGiven: String?
            var user: String?
            var passwordFile: String?
            var remaining = arguments[...]
            func value(_ flag: String, _ attached: Substring) throws(Failure) -> String {
                if !attached.isEmpty { return String(attached) }
                guard let next = remaining.popFirst() else { throw Failure(message: "\(flag) needs a value", code: usage) }
                return next
            }
            while let argument = remaining.popFirst() {
                if argument == "--" {
                    request.recipients += remaining
                    break
                }
                if argument == "--server" || argument == "--user" || argument == "--password-file" {
                    let given = try value(argument, "")
                    switch argument {
                    case "--server": serverGiven = given
                    case "--user": user = given
                    default: passwordFile = given
                    }
                    continue
                }
                guard argument.hasPrefix("-"), argument.count > 1 else {
                    request.recipients.append(argument)
                    continue
                }
                let flag = argument.dropFirst().prefix(1)
                let attached = argument.dropFirst(2)
                switch flag {
                case "t": request.recipientsFromHeaders = true
                case "i": request.ignoreDots = true
                case "f", "r": request.sender = try value("-" + flag, attached)
                case "F": request.fullName = try value("-F", attached)
                case "o":
                    if attached == "i" { request.ignoreDots = true }
                    // -oX options that take their value in the next word are not used by callers of sendmail.
                case "B", "N", "R", "V", "X", "C", "h", "L", "q", "O":
                    if attached.isEmpty { _ = remaining.popFirst() }
                case "v", "b", "m", "n", "U", "G", "A": break
                default: throw Failure(message: "unknown option \(argument)", code: usage)
                }
            }
            request.server = try ServerAddress.find(given: serverGiven)
            request.login = try login(user: user, passwordFile: passwordFile)
            return request
        }

        /// `--user` (else the login name) with `--password-file`'s first line, else
        /// MAILROOM_SMTP_PASSWORD; nil when no password is given.
        static func login(user: String?, passwordFile: String?) throws(Failure) -> (user: String, password: String)? {
            let password: String
            if let passwordFile {
                guard let line = firstLine(of: passwordFile) else {
                    throw Failure(message: "cannot read a password from \(passwordFile): \(String(cString: strerror(errno)))", code: usage)
                }
                password = line
            } else if let value = getenv("MAILROOM_SMTP_PASSWORD"), value.pointee != 0 {
                password = String(cString: value)
            } else {
                guard user == nil else {
                    throw Failure(message: "--user needs a password: --password-file PATH or MAILROOM_SMTP_PASSWORD", code: usage)
                }
                return nil
            }
            guard !password.isEmpty else { throw Failure(message: "the password file \(passwordFile ?? "") is empty", code: usage) }
            return (user ?? String(defaultSender().prefix { $0 != "@" }), password)
        }

        /// A file's first line without its ending; nil when it cannot be read (errno says why).
        static func firstLine(of path: String) -> String? {
            guard let handle = fopen(path, "r") else { return nil }
            defer { fclose(handle) }
            var line: UnsafeMutablePointer<CChar>?
            var capacity = 0
            defer { free(line) }
            guard getline(&line, &capacity, handle) > 0, let line else { return "" }
            var text = String(cString: line)
            while text.last == "\n" || text.last == "\r" { text.removeLast() }
            return text
        }

        static func serverAddress(_ text: String?) throws(Failure) -> (host: String, port: Int) {
            guard let text, !text.isEmpty else { return ("127.0.0.1", 2525) }
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
                throw Failure(message: "the server must be HOST:PORT, not '\(text)'", code: usage)
            }
            var host = String(text[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return (host.isEmpty ? "127.0.0.1" : host, port)
        }

        static func defaultSender() -> String {
            let user = getpwuid(getuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "root"
            var name = [CChar](repeating: 0, count: 256)
            let host = gethostname(&name, name.count - 1) == 0
                ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
            return "\(user)@\(host.isEmpty ? "localhost" : host)"
        }
    }
}
