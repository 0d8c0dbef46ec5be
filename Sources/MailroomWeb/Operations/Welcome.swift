import MailroomCore

/// The one message a new Mailroom opens on: how to send mail here, with the address and port it
/// really takes mail at, so the first thing a person copies works. It is an ordinary message:
/// deleted, it stays deleted, because only a database created just now gets it.
public enum Welcome {
    /// How this Mailroom takes mail, as its flags set it up.
    public struct MailDoor: Sendable {
        public enum Login: Sendable {
            /// No AUTH offered: anyone may send.
            case none
            /// A login from the SMTP password file is required; over plain text too, or only after STARTTLS.
            case required(overPlainText: Bool)
            /// Any login is accepted, and none is needed.
            case acceptsAny
        }

        /// A host others can send to (never a wildcard such as 0.0.0.0).
        public var host: String
        public var port: Int
        public var startTLS: Bool
        public var login: Login

        public init(host: String, port: Int, startTLS: Bool = false, login: Login = .none) {
            self.host = host
            self.port = port
            self.startTLS = startTLS
            self.login = login
        }

        /// `host:port`, with an IPv6 address in brackets.
        public var address: String {
            (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        }
    }

    /// The welcome for a Mailroom whose SMTP door is `mail` (nil: SMTP is off).
    public static func draft(mail: MailDoor?) -> Draft {
        guard let mail else {
            return Draft(subject: "Welcome to Mailroom: taking mail over SMTP is off",
                         body: ([smtpOff] + searching).joined(separator: "\n"), author: "Mailroom")
        }
        return Draft(subject: "Welcome to Mailroom: send mail to \(mail.address)",
                     body: (sending(mail) + searching).joined(separator: "\n"), author: "Mailroom")
    }

    /// A library whose Inbox holds the welcome alone.
    public static func library(mail: MailDoor?, now: Int64) -> Library {
        var inbox = Mailbox()
        _ = try? inbox.add(draft(mail: mail), at: now)
        return Library(inbox: inbox)
    }

    private static let smtpOff = "This is the shared inbox for everyone on the network. Mailroom was started with "
        + "--smtp-port 0, so it takes no mail: start it with --smtp-port 2525 (or any free port) and devices and "
        + "scripts can send here. Messages can also be added with New Message."

    private static func sending(_ mail: MailDoor) -> [String] {
        let (host, port) = (mail.host, mail.port)
        var lines = [
            "Mailroom keeps every message sent to it over SMTP at \(mail.address). Any address is accepted: "
                + "a message goes to the mailbox that claims its address (under Edit Mailboxes), and to the Inbox when none does.",
            "To send one from a shell:",
        ]
        var swaks = "swaks --server \(mail.address) --to you@example.test"
        var sendmail = "echo 'It works' | mailroom sendmail --server \(mail.address)"
        var python = "python3 -c 'import smtplib; s = smtplib.SMTP(\"\(host)\", \(port)); "
        if mail.startTLS {
            swaks += " --tls"
            python += "s.starttls(); "
        }
        switch mail.login {
        case .none, .acceptsAny: break
        case .required:
            swaks += " --auth-user NAME --auth-password PASSWORD"
            sendmail += " --user NAME --password-file FILE"
            python += "s.login(\"NAME\", \"PASSWORD\"); "
        }
        sendmail += " you@example.test"
        python += "s.sendmail(\"me@example.test\", [\"you@example.test\"], \"Subject: Hello\\n\\nIt works.\\n\")'"
        lines += [swaks, sendmail, python]
        if mail.startTLS {
            lines.append("Mailroom offers STARTTLS: a client that can should use it (swaks --tls, smtplib's starttls()).")
        }
        switch mail.login {
        case .none: break
        case .required(let overPlainText):
            lines.append("Sending needs a login: a NAME:PASSWORD line of the file given to --smtp-password-file. "
                + (overPlainText ? "AUTH PLAIN and LOGIN are offered with or without TLS."
                    : "AUTH PLAIN and LOGIN are offered only after STARTTLS, so mailroom sendmail, which speaks no TLS, "
                        + "can log in only once Mailroom also has --smtp-auth-allow-insecure."))
        case .acceptsAny:
            lines.append("Mailroom accepts any login (for devices that insist on one), and mail without one.")
        }
        return lines
    }

    private static let searching = [
        "Search takes words and \"exact phrases\", and narrows with from:, to:, subject:, is:unread, is:flagged, "
            + "has:attachment, before:2026-01-31 and after:2026-01-01.",
        "This is an ordinary message: delete it when you no longer need it, and it will not come back.",
    ]
}
