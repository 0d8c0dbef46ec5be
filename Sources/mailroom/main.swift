import CMalloc
import Dispatch
import Glibc
import HTTP
import MailroomCore
import MailroomNet
import MailroomService
import MailroomStore
import MailroomWeb
import SMTP
import Synchronization

// Flags, wiring and signals; everything else lives in the libraries.

// `mailroom sendmail ...`, or the binary linked as `sendmail`: hand one message to a running Mailroom.
let invokedAs = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
// `mailroom SUBCOMMAND --help` (and `sendmail --help`): that subcommand's own usage, exit 0.
let subcommand = invokedAs == "sendmail" ? "sendmail" : CommandLine.arguments.dropFirst().first ?? ""
let subcommandArguments = Array(CommandLine.arguments.dropFirst(invokedAs == "sendmail" ? 1 : 2))
if let help = Usage.help(for: subcommand), Usage.asksForHelp(subcommandArguments, subcommand: subcommand) {
    Console.out(help)
    exit(0)
}
if invokedAs == "sendmail" {
    exit(Sendmail.run(Array(CommandLine.arguments.dropFirst())))
}
if CommandLine.arguments.dropFirst().first == "sendmail" {
    exit(Sendmail.run(Array(CommandLine.arguments.dropFirst(2))))
}
// `mailroom backup` and `mailroom check`, beside a running Mailroom or without one.
switch CommandLine.arguments.dropFirst().first {
case "backup": exit(Maintenance.backup(Array(CommandLine.arguments.dropFirst(2))))
case "check": exit(Maintenance.check(Array(CommandLine.arguments.dropFirst(2))))
case "import": exit(Transfer.importMail(Array(CommandLine.arguments.dropFirst(2))))
case "export": exit(Transfer.exportMail(Array(CommandLine.arguments.dropFirst(2))))
default: break
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Console.error("\(error.description)\nTry 'mailroom --help'.")
    exit(2)
}
Console.format = options.logFormat
// Pages show times in the machine's zone: --time-zone, else TZ, else the system's (UTC here).
if let zone = options.timeZone { setenv("TZ", zone, 1) }
tzset()
if options.showHelp {
    Console.out(Options.help)
    exit(0)
}

// Memory goes back to the system (see Memory), with what is free handed back once a second by
// the server's housekeeping below.
Memory.limitArenas()

// A client that hangs up mid-response must not kill the process.
signal(SIGPIPE, SIG_IGN)
// SIGINT and SIGTERM are taken by sigwait below, on this thread only; every loop thread
// inherits the mask, so none of them is interrupted.
// A shell starts background jobs with SIGINT ignored, and an ignored signal never reaches
// sigwait, so both get a handler first (it never runs while the signals are blocked).
signal(SIGINT) { _ in }
signal(SIGTERM) { _ in }
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let store: Store
let formToken: String
do {
    store = try Store(path: options.databasePath, backingUpBeforeMigrating: options.backupBeforeMigrate)
    if let old = store.migratedFrom {
        let backup = store.migrationBackup.map { "; the file as it was is in \($0)" } ?? ""
        Console.out("mailroom: upgraded \(options.databasePath) from schema \(old) to schema \(Store.schemaVersion)\(backup)")
    }
    try store.checkpointInBackground()
    // Kept in the database, so pages open in a browser still post after a restart.
    formToken = try store.setting("form-token", orMake: SecurityPolicy.randomToken)
    // Only a database created just now gets the welcome (or the samples); one emptied by people stays empty.
    if store.isNew, options.newDatabase != .empty {
        let now = Int64(Glibc.time(nil))
        let first = options.newDatabase == .samples ? Samples.library(now: now) : Welcome.library(mail: options.mailDoor, now: now)
        try store.write { transaction in try transaction.replaceAll(with: first) }
    }
} catch {
    Console.error(DatabaseProblem.explain(error, path: options.databasePath))
    exit(1)
}

let password: String?
let apiToken: String?
do {
    password = try Password.configured(file: options.passwordFile)
    apiToken = try Password.apiToken(file: options.apiTokenFile)
} catch {
    Console.error(error.description)
    exit(1)
}
// Installed (make install, the .deb), the static files are in PREFIX/share/mailroom/Public beside
// PREFIX/bin/mailroom: used when --public was not given and ./Public has no style.css.
let publicFolder: String
if !options.publicFolderGiven, access(options.publicFolder + "/style.css", R_OK) != 0,
   let installed = InstalledFiles.publicFolder(), access(installed + "/style.css", R_OK) == 0 {
    publicFolder = installed
} else {
    publicFolder = options.publicFolder
}
if access(publicFolder + "/style.css", R_OK) != 0 {
    Console.error("warning: no style.css in \(publicFolder); pages will be unstyled. Use --public PATH.")
}
let isLoopback = ["127.0.0.1", "localhost", "::1"].contains(options.server.host)
if password == nil && !isLoopback {
    Console.error("warning: serving \(options.server.host) without a password: anyone who can reach it can read "
        + "and delete every message. Use --password-file or MAILROOM_PASSWORD.")
}

let app = MailroomApp(
    store: store,
    publicFolder: publicFolder,
    now: { Int64(Glibc.time(nil)) },
    security: SecurityPolicy(
        allowedHosts: HostNames.allowed(bindingTo: options.server.host, extra: options.allowedHosts),
        formToken: formToken),
    signIn: password.map { SignIn(password: $0, log: { Console.out($0) }, warn: { Console.error("warning: " + $0) }) },
    apiToken: apiToken,
    pageSize: options.pageSize)
app.reportProblems { Console.error($0) }

if options.tagRulesFile != nil || options.tagPlusAddresses {
    var rules: [TagRule] = []
    if let file = options.tagRulesFile {
        do {
            let limit = 1 << 20
            let bytes = try Source.contents(of: file, upTo: limit + 1)
            guard bytes.count <= limit else { throw TransferFailure("larger than 1 MB: it cannot be a file of rules") }
            rules = try TagRule.rules(in: String(decoding: bytes, as: UTF8.self))
        } catch {
            Console.error("--tag-rules \(file): \(error)")
            store.close()
            exit(1)
        }
    }
    app.service.useTagging(Tagging(plusAddresses: options.tagPlusAddresses, rules: rules))
}

// Mail out: the rules first, so mail arriving from the first moment is passed on as it should be.
let machineName: String = {
    var name = [CChar](repeating: 0, count: 256)
    guard gethostname(&name, name.count) == 0 else { return "mailroom" }
    let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.isEmpty ? "mailroom" : text
}()
var relayLogin: RelayLogin?
if options.relay != nil {
    if let file = options.relayAuthFile {
        let line = (try? Source.contents(of: file, upTo: 4_096)).map { String(decoding: $0, as: UTF8.self) }?
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first { !$0.hasPrefix("#") && !$0.isEmpty }
        guard let line, let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            Console.error("--relay-auth-file \(file): cannot read a 'user:password' line from it")
            store.close()
            exit(1)
        }
        relayLogin = RelayLogin(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
    }
    let matching = options.relayMatching.flatMap { try? SearchQuery($0) }
    app.service.useRelay(RelayPolicy(
        allowedRecipients: options.relayAllowTo, relayAll: options.relayAll, relayMatching: matching, hostName: machineName))
    if options.relayAllowTo.isEmpty {
        Console.error("warning: --relay-host without --relay-allow-to: no mail will go out")
    }
}

// Webhooks: the rules first too, so mail arriving from the first moment is announced. Links in
// a call name the pages as others reach them; the port is known once the server listens.
final class PublicBase: Sendable {
    let value: Mutex<String>
    init(_ value: String) { self.value = Mutex(value) }
}
let publicBase = PublicBase(options.publicURL ?? "")
var webhookPolicy: WebhookPolicy?
if !options.webhooks.isEmpty {
    var secret: [UInt8]?
    if let file = options.webhookSecretFile {
        let line = (try? Source.contents(of: file, upTo: 4_096)).map { String(decoding: $0, as: UTF8.self) }?
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first
        guard let line, !line.isEmpty else {
            Console.error("--webhook-secret-file \(file): cannot read a secret from its first line")
            store.close()
            exit(1)
        }
        secret = Array(line.utf8)
    }
    let policy = WebhookPolicy(
        targets: options.webhooks, secret: secret, concurrency: options.webhookConcurrency,
        encode: MailroomApp.webhookBody(baseURL: { [publicBase] in publicBase.value.withLock { $0 } }))
    app.service.useWebhooks(policy)
    webhookPolicy = policy
}

let mail: MailService?
do {
    mail = try MailSetup.service(options: options, app: app)
} catch {
    Console.error(error.description)
    exit(1)
}

// Mail imports (`mailroom import --url`) post mbox files larger than other requests may be;
// behind a password, only with the API token (or nobody at all when there is none).
var serving = options.server
// Every connection is a descriptor: take all the system allows, and leave room for the rest.
let descriptorLimit = DescriptorLimit.raise()
serving.maxConnections = options.maxConnections ?? DescriptorLimit.defaultMaxConnections(
    limit: descriptorLimit, smtpConnections: mail == nil ? 0 : options.smtpMaxConnections)
// One address may not take every slot, whatever the cap.
serving.maxConnectionsPerAddress = options.maxPerAddress ?? min(256, max(serving.maxConnections / 2, 1))
serving.uploadPath = MailroomApp.apiPrefix + "import"
serving.maxUploadBytes = MailroomApp.maximumImportBytes
if password != nil {
    serving.uploadAuthorization = { peer, field in app.checkAPIToken(authorization: field, peer: peer) == .valid }
    if apiToken == nil { serving.uploadPath = nil }
}

let server: Server
do {
    server = try Server(
        configuration: serving, logRequests: options.logRequests, logFormat: options.logFormat,
        metrics: app.metrics, events: app.events,
        housekeeping: Housekeeping(everySeconds: 1) {
            // Pages kept for a mailbox that has changed since are let go first.
            app.service.dropStaleValues()
            Memory.handBackUnused()
        }, mayWait: app.mayStore(_:),
        mail: mail, errorPage: app.response(for:), handler: app.respond(to:))
    try server.start()
} catch {
    Console.error(error.description)
    store.close()
    exit(1)
}

let shownHost = options.server.host.contains(":") ? "[\(options.server.host)]" : options.server.host
if let mailPort = server.mailPort, let mail {
    let host = mail.configuration.host
    let shownMailHost = host.contains(":") ? "[\(host)]" : host
    // What a device needs to know to send here: whether it may (or must) use TLS and log in.
    var mailNotes: [String] = []
    if mail.configuration.tls != nil { mailNotes.append("STARTTLS on") }
    switch mail.configuration.session.authentication {
    case .passwords: mailNotes.append("AUTH required")
    case .acceptAny: mailNotes.append("AUTH accepted, not required")
    case .off: break
    }
    Console.out("Mailroom listening on http://\(shownHost):\(server.port)/ and smtp://\(shownMailHost):\(mailPort) "
        + "(" + (["\(options.server.threads) threads"] + mailNotes).joined(separator: "; ") + ")")
} else {
    Console.out("Mailroom listening on http://\(shownHost):\(server.port)/ (\(options.server.threads) threads; SMTP off)")
}

// The Mailpit and MailHog doors: each its own port, caps and loops, over the same app and service.
var doors: [Server] = []
@MainActor func openDoor(_ flag: String, _ name: String, port: Int, mayStore: @escaping WaitPredicate, handler: @escaping Handler) {
    var door = serving
    door.port = port
    door.uploadPath = nil
    door.maxConnections = max(serving.maxConnections / 4, 64)
    door.maxConnectionsPerAddress = min(serving.maxConnectionsPerAddress, door.maxConnections)
    do {
        let listener = try Server(
            configuration: door, logRequests: options.logRequests, logFormat: options.logFormat, metrics: app.metrics,
            mayWait: mayStore, handler: handler)
        try listener.start()
        doors.append(listener)
        Console.out("\(name) API on http://\(shownHost):\(listener.port)/api/")
    } catch {
        Console.error("\(flag): \(error.description)")
        for door in doors { door.stop() }
        server.stop()
        store.close()
        exit(1)
    }
}
if let port = options.mailpitPort {
    let mailpit = MailpitApp(web: app, version: "mailroom")
    openDoor("--mailpit-port", "Mailpit", port: port, mayStore: mailpit.mayStore(_:), handler: mailpit.respond(to:))
}
if let port = options.mailhogPort {
    let mailhog = MailHogApp(web: app)
    openDoor("--mailhog-port", "MailHog", port: port, mayStore: mailhog.mayStore(_:), handler: mailhog.respond(to:))
}

var outbound: OutboundQueue?
var relayClient: RelayClient?
if let relay = options.relay {
    let configuration = RelayConfiguration(
        host: relay.host, port: relay.port, tls: RelayTLS(rawValue: options.relayTLS) ?? .verify,
        trustedCertificates: options.relayCAFile, login: relayLogin, heloName: machineName, timeoutSeconds: options.relayTimeout)
    guard let client = server.relayClient(configuration) else {
        Console.error("--relay-host: the server's loops are not running")
        exit(1)
    }
    let queue = OutboundQueue(service: app.service, sender: client, sessions: options.relaySessions, log: { Console.out($0) })
    do throws(ServiceError) {
        try queue.start()
    } catch {
        Console.error("--relay-host: cannot start the outbound queue: \(error.message)")
        exit(1)
    }
    outbound = queue
    relayClient = client
    Console.out("Mail out through \(relay.host):\(relay.port) (\(options.relaySessions) at once, TLS \(options.relayTLS))")
}

if options.publicURL == nil {
    let host = options.server.host == "0.0.0.0" || options.server.host == "::" ? machineName : shownHost
    publicBase.value.withLock { $0 = "http://\(host):\(server.port)" }
}
var webhookQueue: WebhookQueue?
if let policy = webhookPolicy {
    guard let client = server.webhookClient(trustedCertificates: options.relayCAFile, timeoutSeconds: 30) else {
        Console.error("--webhook: the server's loops are not running")
        exit(1)
    }
    let queue = WebhookQueue(service: app.service, sender: client, policy: policy, log: { Console.out($0) })
    queue.start()
    webhookQueue = queue
}

let retention = RetentionPolicy(maxMessages: options.maxMessages, maxAgeSeconds: options.maxAgeSeconds)
let retentionTimer = Retention.start(retention, service: app.service)
let packerTimer = Packer.start(store)

var received: Int32 = 0
sigwait(&stopSignals, &received)
retentionTimer?.cancel()
packerTimer.cancel()
outbound?.stop()
webhookQueue?.stop()
Console.out("mailroom: signal \(received), shutting down")
// Mail being handed to the relay finishes, for up to 5 seconds, rather than being cut off (a
// message cut off after its end of data would be in doubt at the next start).
if let outbound, let relayClient {
    relayClient.quit()
    let deadline = ContinuousClock.now + .seconds(5)
    while (outbound.sending > 0 || relayClient.connectionsOpen > 0) && ContinuousClock.now < deadline {
        _ = poll(nil, 0, 10)
    }
}
for door in doors { door.stop() }
server.stop()
store.close()
exit(0)
