import Glibc
import MailroomCore
import MailroomNet
import MailroomService
import MailroomWeb
import SMTP

/// The command line, parsed without Foundation.
struct Options {
    var server = ServerConfiguration(threads: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    var publicFolder = "Public"
    /// Whether `--public` was given; if not, an installed Mailroom looks beside itself.
    var publicFolderGiven = false
    var databasePath = "mailroom.sqlite"
    var allowedHosts: [String] = []
    var passwordFile: String?
    var apiTokenFile: String?
    var backupBeforeMigrate = true
    /// An IANA zone such as Europe/Berlin for the times pages show; nil: `TZ`, else UTC.
    var timeZone: String?
    /// What a database created at this start holds.
    var newDatabase = NewDatabase.welcome
    var pageSize = 50
    var logRequests = true
    var logFormat = LogFormat.text
    var showHelp = false
    /// 0 turns the SMTP listener off.
    var smtpPort = 2525
    var smtpPortGiven = false
    /// The Mailpit-compatible API's port (see `MailpitApp`); nil: off.
    var mailpitPort: Int?
    /// The MailHog-compatible API's port (see `MailHogApp`); nil: off.
    var mailhogPort: Int?
    /// `--compat`: SMTP on 1025 and the Mailpit API on 8025 unless their ports are given.
    var compat = false
    /// nil: the same as `--host`.
    var smtpHost: String?
    var smtpLimits = SMTPLimits()
    var smtpMaxConnections = 200
    /// The caps on connections; nil: the defaults, sized by the descriptor limit (see `Caps`).
    var smtpMaxPerAddress: Int?
    var maxConnections: Int?
    var maxPerAddress: Int?
    var smtpIdleSeconds = 300
    var smtpSessionSeconds = 1_800
    var smtpCertificate: String?
    var smtpKey: String?
    var smtpPasswordFile: String?
    var smtpAuthAllowInsecure = false
    var smtpAuthAcceptAny = false
    var maxMessages: Int?
    var maxAgeSeconds: Int64?
    /// `--tag-rules`: a file of `tags = search` lines applied to arriving mail.
    var tagRulesFile: String?
    /// `--tag-plus-addresses`: `name+tag@host` recipients tag their mail (on with `--compat`).
    var tagPlusAddresses = false
    /// Mail out: nil without `--relay-host`.
    var relay: RelayOptions?
    var relayAllowTo: [String] = []
    var relayAll = false
    var relayMatching: String?
    var relayTLS = "verify"
    var relayAuthFile: String?
    var relayCAFile: String?
    var relaySessions = 16
    var relayTimeout = 60
    /// `--webhook`: URLs told of each stored message.
    var webhooks: [String] = []
    var webhookSecretFile: String?
    var webhookConcurrency = 4
    /// `--public-url`: how others reach the pages, for links in webhook calls.
    var publicURL: String?

    struct RelayOptions {
        var host: String
        var port: Int
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let help = """
        Mailroom: a shared inbox for the local network.

        Usage: mailroom [options]

          --host ADDRESS        address to listen on (default 127.0.0.1; 0.0.0.0 serves the LAN)
          --allowed-host NAME   also answer to this Host name (repeatable); others get 403
          --password-file PATH  require this file's first line as a password (or set MAILROOM_PASSWORD);
                                sessions last 7 days and end when Mailroom restarts
          --api-token-file PATH  with a password, scripts pass it on /metrics and /api/ by sending
                                'Authorization: Bearer' and this file's first line (or set MAILROOM_API_TOKEN)
          --port N              port to listen on, 0 for any free port (default 8080)
          --threads N           event loops, one per core (default: the number of cores); SMTP
                                sessions run on half of them, at least one
          --db PATH             SQLite database file, created if missing (default mailroom.sqlite)
          --public PATH         folder of static files such as style.css (default ./Public, else
                                the installed PREFIX/share/mailroom/Public)
          --no-samples          a new database starts empty instead of with a welcome message that
                                says how to send mail here
          --samples             a new database starts with six demo messages instead (screenshots, tests)
          --no-backup-before-migrate  do not copy an older database to DB.schema-N.backup before upgrading it
          --page-size N         rows a list page shows, 10 to 500 (default 50)
          --quiet               do not print a log line per request or SMTP session
          --log-format FORMAT   text (default), or json: one object a line, with time and level
          --max-body BYTES      largest request body accepted (default 65536; more is 413)
          --max-url BYTES       longest request target accepted (default 32768; more is 414)
          --max-headers BYTES   largest set of header fields accepted (default 16384; more is 431)
          --max-header-count N  most header fields accepted (default 100; more is 431)
          --timeout SECONDS     idle or slow connections are closed after this (default 30)
          --max-connections N   HTTP connections at once (default: the open-file limit, which Mailroom
                                raises to its hard limit, less 128 and the SMTP sessions); at the cap
                                newcomers wait in the kernel's queue
          --max-per-ip N        HTTP connections at once from one address (default 256, or half of
                                --max-connections if less; 0: no cap; more get 503)
          --heartbeat SECONDS   a comment on each live-list event stream this often (default 15)
          --time-zone NAME      show times in this zone, such as Europe/Berlin (default: TZ, else UTC)

        Drop-in for Mailpit and MailHog:
          --mailpit-port N      serve Mailpit's API v1 on this port too, for test helpers written for
                                Mailpit (0: any free port; default off)
          --compat              SMTP on 1025 and the Mailpit API on 8025, as Mailpit listens (each
                                still settable with --smtp-port and --mailpit-port)
          --mailhog-port N      serve MailHog's API (v2 lists and search, v1 reads and deletes) on
                                this port too (0: any free port; default off)

        Mail in (SMTP):
          --smtp-port N         port for SMTP, 0 turns it off (default 2525)
          --smtp-host ADDRESS   address for SMTP (default: the same as --host)
          --max-message-size BYTES   largest message accepted, announced as SIZE (default 26214400)
          --smtp-max-recipients N    recipients per message (default 100; more get 452)
          --smtp-max-line BYTES      longest line of message text (default 65536; RFC 5321 says 1000)
          --smtp-max-command BYTES   longest command line (default 512)
          --smtp-max-connections N   SMTP sessions at once (default 200; more get 421)
          --smtp-max-per-ip N        SMTP sessions at once from one address (default 50, as Postfix;
                                     0: no cap; more get 421)
          --smtp-idle-timeout SECONDS    a silent session is closed after this (default 300)
          --smtp-session-timeout SECONDS a session lasts at most this long (default 1800)
          --smtp-tls-cert PATH  PEM certificate chain: offers STARTTLS (with --smtp-tls-key)
          --smtp-tls-key PATH   PEM private key for --smtp-tls-cert
          --smtp-password-file PATH  require AUTH PLAIN/LOGIN against 'user:password' lines;
                                offered only after STARTTLS unless --smtp-auth-allow-insecure
          --smtp-auth-allow-insecure offer AUTH without TLS too
          --smtp-auth-accept-any     accept any login (for devices that insist on logging in)
          --max-messages N      keep at most N messages: the oldest unflagged go first
          --max-age DURATION    delete unflagged messages older than this (30d, 12h, 90m)

        Tags (an X-Tags header always tags its mail):
          --tag-rules PATH      a file of 'tag1, tag2 = search' lines: arriving mail the search
                                finds gets the tags (# starts a comment)
          --tag-plus-addresses  mail to name+tag@host gets the tag 'tag' (on with --compat)

        Mail out (nothing leaves without --relay-host and --relay-allow-to):
          --relay-host HOST:PORT  the SMTP relay that Release, Forward and automatic relay send through
          --relay-allow-to REGEX  addresses mail may go out to, a regular expression matching a whole
                                address without regard to case (repeatable; none: no mail goes out)
          --relay-all           pass every arriving message on to its (allowed) recipients
          --relay-matching QUERY  pass on arriving mail that this search finds
          --relay-tls MODE      verify (default: STARTTLS when offered, certificate checked), require,
                                or none
          --relay-auth-file PATH  'user:password' for AUTH at the relay (sent only over TLS)
          --relay-ca-file PATH  also trust the certificate authorities in this PEM file
          --relay-sessions N    messages sent at once (default 16)
          --relay-timeout SECONDS  each wait for the relay (default 60)

        Webhooks:
          --webhook URL         POST a JSON summary of each stored message to this http(s) URL
                                (repeatable); queued durably, retried, never slowing intake
          --webhook-secret-file PATH  sign each call: X-Mailroom-Signature: sha256=HMAC of the body
          --webhook-concurrency N  calls under way at once to one URL (default 4)
          --public-url URL      how others reach Mailroom, for the links in a call (default:
                                http://HOST:PORT as it listens)

          -h, --help            show this help

        mailroom sendmail [-t] [-f SENDER] [-i] [--server HOST:PORT] [--user NAME --password-file PATH] [RECIPIENT...]
        mailroom backup [--db PATH] OUT    copy a live database, as of one commit, to the new file OUT
        mailroom check [--db PATH]         SQLite's integrity check and Mailroom's own; exit 1 on a problem
        mailroom import [--db PATH | --url http://HOST:PORT [--token-file FILE]] --mailbox NAME FILE|MAILDIR...
                                           mbox files and Maildirs into NAME; mail imported before is skipped
        mailroom export [--db PATH] --mailbox NAME [OUT]   NAME as an mbox file (standard output without OUT)
        """

    static func parse(_ arguments: [String]) throws(Problem) -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws(Problem) -> String {
            guard let value = remaining.popFirst() else { throw Problem(description: "\(flag) needs a value") }
            return value
        }
        func number(for flag: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), range.contains(number) else {
                throw Problem(description: "\(flag) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
            }
            return number
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--host": options.server.host = try value(for: flag)
            case "--allowed-host": options.allowedHosts.append(try value(for: flag))
            case "--password-file": options.passwordFile = try value(for: flag)
            case "--api-token-file": options.apiTokenFile = try value(for: flag)
            case "--no-backup-before-migrate": options.backupBeforeMigrate = false
            case "--time-zone":
                let zone = try value(for: flag)
                // Only names of the zone database: a path or a POSIX rule would be read as one too.
                guard !zone.hasPrefix("/"), !zone.contains(".."), access("/usr/share/zoneinfo/" + zone, R_OK) == 0 else {
                    throw Problem(description: "--time-zone: no time zone \"\(zone)\" (use a name such as Europe/Berlin or UTC)")
                }
                options.timeZone = zone
            case "--port": options.server.port = try number(for: flag, in: 0...65535)
            case "--threads": options.server.threads = try number(for: flag, in: 1...256)
            case "--public":
                options.publicFolder = try value(for: flag)
                options.publicFolderGiven = true
            case "--db": options.databasePath = try value(for: flag)
            case "--no-samples": options.newDatabase = .empty
            case "--samples": options.newDatabase = .samples
            case "--page-size": options.pageSize = try number(for: flag, in: 10...500)
            case "--quiet": options.logRequests = false
            case "--log-format":
                let text = try value(for: flag)
                guard let format = LogFormat(rawValue: text) else {
                    throw Problem(description: "--log-format is text or json, not \"\(text)\"")
                }
                options.logFormat = format
            case "--max-body": options.server.maxBodyBytes = try number(for: flag, in: 1_024...(64 << 20))
            case "--max-url": options.server.maxURLBytes = try number(for: flag, in: 256...(1 << 20))
            case "--max-header-count": options.server.maxHeaderCount = try number(for: flag, in: 10...10_000)
            case "--max-headers": options.server.maxHeaderBytes = try number(for: flag, in: 1_024...(1 << 20))
            case "--timeout": options.server.timeoutSeconds = try number(for: flag, in: 1...3_600)
            case "--max-connections": options.maxConnections = try number(for: flag, in: 1...10_000_000)
            case "--max-per-ip": options.maxPerAddress = try number(for: flag, in: 0...10_000_000)
            case "--heartbeat": options.server.heartbeatSeconds = try number(for: flag, in: 1...3_600)
            case "--smtp-port":
                options.smtpPort = try number(for: flag, in: 0...65535)
                options.smtpPortGiven = true
            case "--mailpit-port": options.mailpitPort = try number(for: flag, in: 0...65535)
            case "--mailhog-port": options.mailhogPort = try number(for: flag, in: 0...65535)
            case "--compat": options.compat = true
            case "--smtp-host": options.smtpHost = try value(for: flag)
            case "--max-message-size": options.smtpLimits.maxMessageBytes = try number(for: flag, in: 1_024...(1 << 30))
            case "--smtp-max-recipients": options.smtpLimits.maxRecipients = try number(for: flag, in: 1...100_000)
            case "--smtp-max-line": options.smtpLimits.maxTextLineBytes = try number(for: flag, in: 1_000...(1 << 24))
            case "--smtp-max-command": options.smtpLimits.maxCommandLineBytes = try number(for: flag, in: 512...65_536)
            case "--smtp-max-connections": options.smtpMaxConnections = try number(for: flag, in: 1...100_000)
            case "--smtp-max-per-ip": options.smtpMaxPerAddress = try number(for: flag, in: 0...100_000)
            case "--smtp-idle-timeout": options.smtpIdleSeconds = try number(for: flag, in: 1...86_400)
            case "--smtp-session-timeout": options.smtpSessionSeconds = try number(for: flag, in: 1...86_400)
            case "--smtp-tls-cert": options.smtpCertificate = try value(for: flag)
            case "--smtp-tls-key": options.smtpKey = try value(for: flag)
            case "--smtp-password-file": options.smtpPasswordFile = try value(for: flag)
            case "--smtp-auth-allow-insecure": options.smtpAuthAllowInsecure = true
            case "--smtp-auth-accept-any": options.smtpAuthAcceptAny = true
            case "--max-messages": options.maxMessages = try number(for: flag, in: 1...1_000_000_000)
            case "--max-age":
                let text = try value(for: flag)
                guard let seconds = Duration.seconds(in: text) else {
                    throw Problem(description: "--max-age must be a number and a unit (30d, 12h, 90m, 3600s), not '\(text)'")
                }
                options.maxAgeSeconds = seconds
            case "--tag-rules": options.tagRulesFile = try value(for: flag)
            case "--tag-plus-addresses": options.tagPlusAddresses = true
            case "--relay-host":
                let text = try value(for: flag)
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port),
                      colon != text.startIndex
                else { throw Problem(description: "--relay-host is HOST:PORT, such as smtp.example.com:587, not '\(text)'") }
                var host = String(text[..<colon])
                if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                options.relay = RelayOptions(host: host, port: port)
            case "--relay-allow-to": options.relayAllowTo.append(try value(for: flag))
            case "--relay-all": options.relayAll = true
            case "--relay-matching": options.relayMatching = try value(for: flag)
            case "--relay-tls":
                let mode = try value(for: flag)
                guard ["verify", "require", "none"].contains(mode) else {
                    throw Problem(description: "--relay-tls is verify, require or none, not '\(mode)'")
                }
                options.relayTLS = mode
            case "--relay-auth-file": options.relayAuthFile = try value(for: flag)
            case "--relay-ca-file": options.relayCAFile = try value(for: flag)
            case "--relay-sessions": options.relaySessions = try number(for: flag, in: 1...256)
            case "--relay-timeout": options.relayTimeout = try number(for: flag, in: 1...3_600)
            case "--webhook": options.webhooks.append(try value(for: flag))
            case "--webhook-secret-file": options.webhookSecretFile = try value(for: flag)
            case "--webhook-concurrency": options.webhookConcurrency = try number(for: flag, in: 1...64)
            case "--public-url": options.publicURL = try value(for: flag)
            case "-h", "--help": options.showHelp = true
            default: throw Problem(description: "unknown option '\(flag)'")
            }
        }
        if options.compat {
            if !options.smtpPortGiven { options.smtpPort = 1025 }
            if options.mailpitPort == nil { options.mailpitPort = 8025 }
            options.tagPlusAddresses = true
        }
        let ports = [("--port", options.server.port), ("--mailpit-port", options.mailpitPort ?? 0),
                     ("--mailhog-port", options.mailhogPort ?? 0)].filter { $0.1 != 0 }
        if Set(ports.map(\.1)).count != ports.count {
            throw Problem(description: ports.map(\.0).joined(separator: ", ") + " need different ports: each door is a listener of its own")
        }
        if options.relay == nil && (!options.relayAllowTo.isEmpty || options.relayAll || options.relayMatching != nil
            || options.relayAuthFile != nil) {
            throw Problem(description: "--relay-allow-to, --relay-all, --relay-matching and --relay-auth-file need --relay-host")
        }
        if options.relayAll && options.relayMatching != nil {
            throw Problem(description: "--relay-all and --relay-matching exclude each other")
        }
        if let problem = RelayPolicy.problem(in: options.relayAllowTo) {
            throw Problem(description: "--relay-allow-to: " + problem)
        }
        if let text = options.relayMatching {
            let query: SearchQuery
            do throws(SearchQueryError) {
                query = try SearchQuery(text)
            } catch {
                throw Problem(description: "--relay-matching: " + error.message)
            }
            guard !query.isEmpty else { throw Problem(description: "--relay-matching needs a search that narrows, not '\(text)'") }
        }
        if options.webhookSecretFile != nil && options.webhooks.isEmpty {
            throw Problem(description: "--webhook-secret-file needs --webhook")
        }
        let ownPorts = Set([options.server.port, options.smtpPort, options.mailpitPort ?? 0, options.mailhogPort ?? 0].filter { $0 != 0 })
        for url in options.webhooks {
            guard let target = WebhookTarget(url) else {
                throw Problem(description: "--webhook takes an http:// or https:// URL with a host, not '\(url)'")
            }
            let local = ["localhost", "127.0.0.1", "::1", "0.0.0.0", "::", options.server.host].contains(target.host.lowercased())
                || target.host.hasPrefix("127.")
            if local && ownPorts.contains(target.port) {
                throw Problem(description: "--webhook \(url) points at one of Mailroom's own ports: a call would come back to it")
            }
        }
        if (options.smtpCertificate == nil) != (options.smtpKey == nil) {
            throw Problem(description: "--smtp-tls-cert and --smtp-tls-key go together")
        }
        if options.smtpPasswordFile != nil && options.smtpAuthAcceptAny {
            throw Problem(description: "--smtp-password-file and --smtp-auth-accept-any exclude each other")
        }
        if options.smtpPasswordFile != nil && options.smtpCertificate == nil && !options.smtpAuthAllowInsecure {
            throw Problem(description: "--smtp-password-file needs STARTTLS (--smtp-tls-cert and --smtp-tls-key), "
                + "or --smtp-auth-allow-insecure to send passwords in plain text")
        }
        return options
    }
}

extension Options {
    /// The SMTP door as the welcome message tells it: the port and the host others can reach
    /// (a wildcard becomes an address of this machine); nil when SMTP is off.
    var mailDoor: Welcome.MailDoor? {
        guard smtpPort != 0 else { return nil }
        let login: Welcome.MailDoor.Login = smtpPasswordFile != nil ? .required(overPlainText: smtpAuthAllowInsecure)
            : smtpAuthAcceptAny ? .acceptsAny : .none
        return Welcome.MailDoor(host: HostNames.reachable(bindingTo: smtpHost ?? server.host), port: smtpPort,
                                startTLS: smtpCertificate != nil, login: login)
    }
}

/// What a new database starts with; a database that exists already is never filled.
enum NewDatabase {
    /// One message from Mailroom on how to send mail here (the default).
    case welcome
    /// The six demo messages (`--samples`).
    case samples
    /// Nothing (`--no-samples`).
    case empty
}

/// Durations on the command line: a whole number and a unit.
enum Duration {
    static func seconds(in text: String) -> Int64? {
        guard let unit = text.last, let number = Int64(text.dropLast()), number > 0 else { return nil }
        let scale: Int64? = switch unit {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        case "w": 604_800
        default: nil
        }
        guard let scale else { return nil }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : seconds
    }
}
