import Glibc
import HTTP
import MailroomNet
import MailroomService
import MailroomWeb
import SMTP

/// The SMTP side as the flags describe it, storing every message through the service.
enum MailSetup {
    static func service(options: Options, app: MailroomApp) throws(Password.Problem) -> MailService? {
        guard options.smtpPort != 0 else { return nil }
        let authentication: SessionOptions.Authentication
        if let file = options.smtpPasswordFile {
            let logins = try MailPasswords.read(file: file)
            authentication = .passwords(check: { user, password in
                Secret.equal(password, logins[user] ?? "\u{0}" + password)
            }, overPlainText: options.smtpAuthAllowInsecure)
        } else {
            authentication = options.smtpAuthAcceptAny ? .acceptAny : .off
        }
        let tls = options.smtpCertificate.flatMap { certificate in
            options.smtpKey.map { TLSFiles(certificate: certificate, key: $0) }
        }
        let guesses = app.guesses
        let throttle = LoginThrottle(
            wait: { peer in
                guard case .wait(let seconds, let first) = guesses.check(peer, now: Int64(time(nil))) else { return nil }
                if first { Console.error("warning: SMTP AUTH: \(peer) must wait \(seconds) s after wrong logins; not checked") }
                return seconds
            },
            failed: { peer, user in
                let count = guesses.failed(peer, now: Int64(time(nil)))
                // The user name is decoded base64 from the client: no line break of its own in our log.
                Console.error("warning: SMTP AUTH: wrong password for \"\(LogLine.visible(user))\" from \(peer) (\(count) in a row)")
            })
        let session = SessionOptions(
            hostname: hostname(), limits: options.smtpLimits, canStartTLS: tls != nil, authentication: authentication,
            throttle: throttle)
        var configuration = MailConfiguration(
            host: options.smtpHost ?? options.server.host, port: options.smtpPort, session: session,
            maxConnections: options.smtpMaxConnections, idleSeconds: options.smtpIdleSeconds,
            sessionSeconds: options.smtpSessionSeconds, tls: tls)
        configuration.maxConnectionsPerAddress = options.smtpMaxPerAddress
            ?? min(50, options.smtpMaxConnections)
        let log = options.logRequests
        let service = app.service
        return MailService(configuration: configuration) { message, peer, done in
            let (sender, count, size) = (message.envelope.sender, message.envelope.recipients.count, message.text.count)
            service.receiveMail(message.text, from: sender, to: message.envelope.recipients, peer: peer) { result in
                switch result {
                case .success(let ids):
                    let names = ids.map { "\($0.rawValue)" }.joined(separator: ",")
                    if log {
                        Console.out("\(LogLine.timestamp()) \(peer) SMTP <\(sender)> \(count) recipient(s) \(size) bytes stored as \(names)")
                    }
                    done(.stored("message " + names))
                case .failure(let error):
                    Console.error("could not store a message from \(peer): \(error.message)")
                    done(.refused(error.reply))
                }
            }
        }
    }

    /// This machine's own name, for the greeting; never looked up in DNS.
    private static func hostname() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "mailroom" }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "mailroom" : text
    }
}
