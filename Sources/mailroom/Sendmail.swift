import Glibc

/// `mailroom sendmail`: what cron, `mail(1)` and scripts call as sendmail. It reads one message
/// from standard input and hands it to a running Mailroom over SMTP; it keeps no queue, so when
/// Mailroom cannot take the message it says so and exits non-zero (75 to try again later).
///
/// Understood: recipients as arguments, `-t` (recipients from To, Cc and Bcc; Bcc is removed),
/// `-f`/`-r` sender, `-F` full name, `-i`/`-oi` (a lone "." does not end the message),
/// `--server HOST:PORT` (else found as `ServerAddress.find` says), and `--user NAME` with
/// `--password-file PATH` (or `$MAILROOM_SMTP_PASSWORD`) for a Mailroom that requires a login.
/// Other sendmail options (`-o...`, `-B`, `-N`, `-v`, `-bm`) are accepted and ignored.
enum Sendmail {
    struct Failure: Error {
        let message: String
        let code: Int32
    }

    // sysexits.h
    static let usage: Int32 = 64
    static let unavailable: Int32 = 69
    static let tryAgain: Int32 = 75
    static let noPermission: Int32 = 77

    static func run(_ arguments: [String]) -> Int32 {
        do {
            let request = try Request.parse(arguments)
            var input: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                input += buffer[0..<count]
            }
            let message = Message(input, endsAtDot: !request.ignoreDots)
            var recipients = request.recipients
            if request.recipientsFromHeaders { recipients += message.headerRecipients() }
            guard !recipients.isEmpty else { throw Failure(message: "no recipients", code: usage) }
            let text = message.prepared(sender: request.sender, fullName: request.fullName,
                                        dropBcc: request.recipientsFromHeaders)
            try deliver(text, from: request.sender, to: recipients, server: request.server, login: request.login)
            return 0
        } catch let failure as Failure {
            Console.error("sendmail: \(failure.message)")
            return failure.code
        } catch {
            Console.error("sendmail: \(error)")
            return tryAgain
        }
    }

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

    /// The message read from standard input, as lines without their endings.
    struct Message {
        var header: [String] = []
        var body: [[UInt8]] = []

        init(_ input: [UInt8], endsAtDot: Bool) {
            var lines = input.split(separator: 10, omittingEmptySubsequences: false).map { line -> [UInt8] in
                line.last == 13 ? Array(line.dropLast()) : Array(line)
            }
            if lines.last?.isEmpty == true { lines.removeLast() }
            if endsAtDot, let dot = lines.firstIndex(of: [UInt8(ascii: ".")]) { lines.removeSubrange(dot...) }
            var inHeader = true
            for line in lines {
                if inHeader {
                    if line.isEmpty {
                        inHeader = false
                        continue
                    }
                    // A first line that is not a header field starts the body.
                    let isField = line.first == 32 || line.first == 9 || Message.isFieldStart(line)
                    if isField {
                        header.append(String(decoding: line, as: UTF8.self))
                        continue
                    }
                    inHeader = false
                }
                body.append(line)
            }
        }

        static func isFieldStart(_ line: [UInt8]) -> Bool {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
            return line[..<colon].allSatisfy { $0 > 32 && $0 < 127 }
        }

        /// Whole fields, folded lines joined.
        var fields: [(name: String, value: String)] {
            var all: [(name: String, value: String)] = []
            for line in header {
                if line.first == " " || line.first == "\t", !all.isEmpty {
                    all[all.count - 1].value += " " + line.drop { $0 == " " || $0 == "\t" }
                } else if let colon = line.firstIndex(of: ":") {
                    all.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces))
                }
            }
            return all
        }

        func has(_ name: String) -> Bool {
            fields.contains { $0.name.lowercased() == name }
        }

        /// The addresses in To, Cc and Bcc (for `-t`).
        func headerRecipients() -> [String] {
            fields.filter { ["to", "cc", "bcc"].contains($0.name.lowercased()) }.flatMap { Self.addresses(in: $0.value) }
        }

        /// `Name <a@b>, c@d` → the addresses, roughly as sendmail reads them.
        static func addresses(in value: String) -> [String] {
            var found: [String] = []
            var current = ""
            var quoted = false
            var depth = 0
            for character in value + "," {
                switch character {
                case "\"": quoted.toggle(); current.append(character)
                case "(" where !quoted: depth += 1
                case ")" where !quoted: depth = max(depth - 1, 0)
                case "," where !quoted && depth == 0:
                    let item = current.trimmingSpaces
                    if let open = item.lastIndex(of: "<"), let close = item.lastIndex(of: ">"), open < close {
                        found.append(String(item[item.index(after: open)..<close]))
                    } else if item.contains("@") {
                        found.append(item)
                    }
                    current = ""
                default:
                    if depth == 0 { current.append(character) }
                }
            }
            return found.filter { !$0.isEmpty }
        }

        /// The message as it goes over SMTP: From and Date added when missing, Bcc removed for
        /// `-t`, every line ending in CRLF, and lines starting with a dot doubled.
        func prepared(sender: String, fullName: String?, dropBcc: Bool) -> [UInt8] {
            var lines: [[UInt8]] = []
            var skipping = false
            for line in header {
                if line.first == " " || line.first == "\t" {
                    if !skipping { lines.append(Array(line.utf8)) }
                    continue
                }
                skipping = dropBcc && line.lowercased().hasPrefix("bcc:")
                if !skipping { lines.append(Array(line.utf8)) }
            }
            if !has("from") {
                lines.append(Array("From: \(fullName.map { "\"\($0)\" " } ?? "")<\(sender)>".utf8))
            }
            if !has("date") { lines.append(Array("Date: \(Self.date())".utf8)) }
            lines.append([])
            lines += body
            var out: [UInt8] = []
            for line in lines {
                if line.first == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
                out += line
                out += [13, 10]
            }
            return out
        }

        static func date() -> String {
            var now = time(nil)
            var parts = tm()
            gmtime_r(&now, &parts)
            var text = [CChar](repeating: 0, count: 64)
            let count = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S +0000", &parts)
            return String(decoding: text.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    // MARK: SMTP

    static func deliver(_ text: [UInt8], from sender: String, to recipients: [String], server: (host: String, port: Int),
                        login: (user: String, password: String)?) throws(Failure) {
        let connection = try Connection(host: server.host, port: server.port)
        defer { connection.close() }
        try connection.expect(220, after: nil)
        let offers = try connection.expect(250, after: "EHLO \(Request.defaultSender().split(separator: "@").last ?? "localhost")")
            .dropFirst().map { $0.dropFirst(4).uppercased().split(separator: " ") }
        let offersAuth = offers.contains { $0.first == "AUTH" && $0.contains("PLAIN") }
        let offersTLS = offers.contains { $0.first == "STARTTLS" }
        if let login {
            if offersAuth {
                try logIn(login, on: connection)
            } else if offersTLS {
                throw Failure(message: "Mailroom at \(server.host):\(server.port) offers AUTH only after STARTTLS, which "
                    + "mailroom sendmail does not speak: start Mailroom with --smtp-auth-allow-insecure to log in "
                    + "without TLS, or send with a client that speaks TLS (swaks --tls)", code: noPermission)
            }
            // Neither AUTH nor STARTTLS: this Mailroom takes mail without a login.
        }
        let mail = try connection.reply(after: "MAIL FROM:<\(sender)>")
        if mail.code == 530 {
            throw Failure(message: login == nil && offersAuth
                ? "Mailroom at \(server.host):\(server.port) requires a login: give --user NAME and --password-file PATH "
                    + "(or set MAILROOM_SMTP_PASSWORD)"
                : "Mailroom at \(server.host):\(server.port) requires a login, and offers AUTH only after STARTTLS, which "
                    + "mailroom sendmail does not speak: start Mailroom with --smtp-auth-allow-insecure to log in "
                    + "without TLS", code: noPermission)
        }
        try connection.check(mail, is: 250, after: "MAIL FROM:<\(sender)>")
        var accepted = 0
        for recipient in recipients {
            do throws(Failure) {
                try connection.expect(250, after: "RCPT TO:<\(recipient)>")
                accepted += 1
            } catch {
                guard error.code == unavailable else { throw error }
                Console.error("sendmail: \(recipient): \(error.message)")
            }
        }
        guard accepted > 0 else { throw Failure(message: "no recipient was accepted", code: unavailable) }
        try connection.expect(354, after: "DATA")
        try connection.write(text + Array(".\r\n".utf8))
        try connection.expect(250, after: nil)
        _ = try? connection.expect(221, after: "QUIT")
    }

    /// AUTH PLAIN with the whole login in its first line. The password is never shown: a refusal
    /// names the command as `AUTH PLAIN` alone.
    static func logIn(_ login: (user: String, password: String), on connection: Connection) throws(Failure) {
        let token = Base64Text.encode(Array("\0\(login.user)\0\(login.password)".utf8))
        let reply = try connection.reply(after: "AUTH PLAIN " + token)
        switch reply.code {
        case 235: return
        case 535:
            throw Failure(message: "Mailroom refused the login for \"\(login.user)\": the user name or password is wrong",
                          code: noPermission)
        default:
            try connection.check(reply, is: 235, after: "AUTH PLAIN")
        }
    }

    final class Connection {
        private let fd: Int32
        private var pending: [UInt8] = []

        init(host: String, port: Int) throws(Failure) {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_NUMERICSERV
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
                throw Failure(message: "cannot resolve \(host)", code: tryAgain)
            }
            defer { freeaddrinfo(list) }
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0, connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                let reason = String(cString: strerror(errno))
                if fd >= 0 { Glibc.close(fd) }
                throw Failure(message: "cannot connect to Mailroom at \(host):\(port): \(reason)", code: tryAgain)
            }
            var wait = timeval(tv_sec: 300, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            self.fd = fd
        }

        func close() {
            Glibc.close(fd)
        }

        func write(_ bytes: [UInt8]) throws(Failure) {
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw Failure(message: "the connection to Mailroom broke while sending", code: tryAgain) }
                sent += count
            }
        }

        /// Sends `command` (if any), reads the whole reply, and throws unless its code is `code`;
        /// the reply's lines when it is.
        @discardableResult
        func expect(_ code: Int, after command: String?) throws(Failure) -> [String] {
            let got = try reply(after: command)
            try check(got, is: code, after: command)
            return got.lines
        }

        /// Sends `command` (if any) and reads the whole reply, whatever its code.
        func reply(after command: String?) throws(Failure) -> (code: Int, lines: [String]) {
            if let command { try write(Array((command + "\r\n").utf8)) }
            var text: [String] = []
            while true {
                let line = try readLine()
                text.append(line)
                let bytes = Array(line.utf8)
                if bytes.count < 4 || bytes[3] != UInt8(ascii: "-") { break }
            }
            let last = text.last ?? ""
            guard let got = Int(last.prefix(3)) else {
                throw Failure(message: "Mailroom answered something that is not SMTP: \(last)", code: tryAgain)
            }
            return (got, text)
        }

        /// Throws, naming `command` and what Mailroom said, unless the reply's code is `code`.
        func check(_ reply: (code: Int, lines: [String]), is code: Int, after command: String?) throws(Failure) {
            guard reply.code == code else {
                let said = reply.lines.joined(separator: " / ")
                throw Failure(message: "Mailroom refused \(command ?? "the connection"): \(said)",
                              code: reply.code >= 500 ? unavailable : tryAgain)
            }
        }

        /// Exactly `count` bytes (an HTTP body, for `mailroom import --url`).
        func read(_ count: Int) throws(Failure) -> [UInt8] {
            while pending.count < count {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let got = recv(fd, &buffer, buffer.count, 0)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { throw Failure(message: "Mailroom closed the connection", code: tryAgain) }
                pending += buffer[0..<got]
            }
            let bytes = Array(pending[..<count])
            pending.removeFirst(count)
            return bytes
        }

        func readLine() throws(Failure) -> String {
            while true {
                if let newline = pending.firstIndex(of: 10) {
                    var line = Array(pending[..<newline])
                    pending.removeFirst(newline + 1)
                    if line.last == 13 { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                var buffer = [UInt8](repeating: 0, count: 4_096)
                let count = recv(fd, &buffer, buffer.count, 0)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw Failure(message: "Mailroom closed the connection", code: tryAgain) }
                pending += buffer[0..<count]
            }
        }
    }
}

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

/// Base64 (RFC 4648, with padding) for the AUTH PLAIN line.
enum Base64Text {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int((value >> (18 - 6 * UInt32(position))) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

private extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
