import MailroomNet

extension Sendmail {
    /// Sendmail's side of an SMTP conversation with Mailroom, over a `ClientSocket`; a broken
    /// connection is a failure worth trying again later.
    final class SMTPClient {
        private let socket: ClientSocket

        init(host: String, port: Int) throws(Failure) {
            do {
                socket = try ClientSocket(host: host, port: port)
            } catch {
                throw Failure(message: error.message, code: tryAgain)
            }
        }

        func close() {
            socket.close()
        }

        func write(_ bytes: [UInt8]) throws(Failure) {
            do {
                try socket.write(bytes)
            } catch {
                throw Failure(message: error.message, code: tryAgain)
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

        private func readLine() throws(Failure) -> String {
            do {
                return try socket.readLine()
            } catch {
                throw Failure(message: error.message, code: tryAgain)
            }
        }
    }
}
