import CivilDate
import Glibc
import SMTP

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

    static func deliver(_ text: [UInt8], from sender: String, to recipients: [String], server: (host: String, port: Int),
                        login: (user: String, password: String)?) throws(Failure) {
        let connection = try SMTPClient(host: server.host, port: server.port)
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
    static func logIn(_ login: (user: String, password: String), on connection: SMTPClient) throws(Failure) {
        let token = Base64.encode(Array("\0\(login.user)\0\(login.password)".utf8))
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
}

extension Sendmail.Message {
    /// Now, as a Date field gives it.
    static func date() -> String {
        UTCTime(secondsSinceEpoch: Int64(time(nil))).mailDate
    }
}
