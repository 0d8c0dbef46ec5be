import Glibc

/// `mailroom sendmail`: what cron, `mail(1)` and scripts call as sendmail. It reads one message
/// from standard input and hands it to a running Mailroom over SMTP; it keeps no queue, so when
/// Mailroom cannot take the message it says so and exits non-zero (75 to try again later).
///
/// Understood: recipients as arguments, `-t` (recipients from To, Cc and Bcc; Bcc is removed),
/// `-f`/`-r` sender, `-F` full name, `-i`/`-oi` (a lone "." does not end the message), and
/// `--server HOST:PORT` (default `$MAILROOM_SMTP`, else 127.0.0.1:2525). Other sendmail
/// options (`-o...`, `-B`, `-N`, `-v`, `-bm`) are accepted and ignored.
enum Sendmail {
    struct Failure: Error {
        let message: String
        let code: Int32
    }

    // sysexits.h
    static let usage: Int32 = 64
    static let unavailable: Int32 = 69
    static let tryAgain: Int32 = 75

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
            try deliver(text, from: request.sender, to: recipients, server: request.server)
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
        var server: (host: String, port: Int)

        static func parse(_ arguments: [String]) throws(Failure) -> Request {
            var request = Request(sender: defaultSender(), server: try serverAddress(getenv("MAILROOM_SMTP").map { String(cString: $0) }))
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
                if argument == "--server" {
                    request.server = try serverAddress(try value(argument, ""))
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
            return request
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

    static func deliver(_ text: [UInt8], from sender: String, to recipients: [String], server: (host: String, port: Int)) throws(Failure) {
        let connection = try Connection(host: server.host, port: server.port)
        defer { connection.close() }
        try connection.expect(220, after: nil)
        try connection.expect(250, after: "EHLO \(Request.defaultSender().split(separator: "@").last ?? "localhost")")
        try connection.expect(250, after: "MAIL FROM:<\(sender)>")
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

        /// Sends `command` (if any), reads the whole reply, and throws unless its code is `code`.
        func expect(_ code: Int, after command: String?) throws(Failure) {
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
            guard got == code else {
                let said = text.joined(separator: " / ")
                throw Failure(message: "Mailroom refused \(command ?? "the connection"): \(said)",
                              code: got >= 500 ? unavailable : tryAgain)
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

private extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
