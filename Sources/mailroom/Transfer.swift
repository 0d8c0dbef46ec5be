import Dispatch
import Glibc
import HTTP
import MailroomCore
import MailroomMail
import MailroomNet
import MailroomService
import MailroomStore
import MailroomWeb

/// `mailroom import` and `mailroom export`: mail in from mbox files and Maildirs, and a mailbox
/// out as mbox.
enum Transfer {
    static let usage = """
        Usage: mailroom import [--db PATH] [--as-message] --mailbox NAME FILE|MAILDIR...
               mailroom import --url http://HOST:PORT [--token-file FILE] [--as-message] --mailbox NAME FILE|MAILDIR...
               mailroom export [--db PATH] --mailbox NAME [OUT]
        import reads mbox files (and single .eml messages) and Maildirs (cur and new) into the mailbox NAME,
        made when missing; a file neither an mbox nor a message is refused (--as-message takes it whole).
        Without --url it writes the file itself (Mailroom must not be running on it); with --url it
        sends the mail to a running Mailroom. Mail imported before is skipped, so an
        interrupted import can simply be run again. export writes NAME as an mbox file (standard output
        without OUT); mail is written byte for byte as it arrived, with its tags as a first X-Tags line.
        """

    struct Arguments {
        var database = "mailroom.sqlite"
        var url: String?
        var tokenFile: String?
        var mailbox: String?
        var asMessage = false
        var paths: [String] = []

        init?(_ arguments: [String]) {
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                let flags = ["--db", "--url", "--token-file", "--mailbox"]
                if flags.contains(argument) {
                    guard index + 1 < arguments.count else { return nil }
                    let value = arguments[index + 1]
                    switch argument {
                    case "--db": database = value
                    case "--url": url = value
                    case "--token-file": tokenFile = value
                    default: mailbox = value
                    }
                    index += 2
                    continue
                }
                if argument == "--as-message" {
                    asMessage = true
                    index += 1
                    continue
                }
                if argument.hasPrefix("-") && argument != "-" { return nil }
                paths.append(argument)
                index += 1
            }
        }
    }

    // MARK: Import

    /// Exit status: 0 when every message was stored or already there, 1 on a failure (what was
    /// committed before it stays), 64 on bad usage.
    static func importMail(_ arguments: [String]) -> Int32 {
        guard let arguments = Arguments(arguments), let mailbox = arguments.mailbox, !mailbox.isEmpty,
              !arguments.paths.isEmpty
        else {
            Console.error(usage)
            return 64
        }
        // Every file is opened and looked at before anything is stored, so a file refused as not
        // mail leaves the mailbox as it was.
        let sources: [Source]
        do {
            sources = try arguments.paths.map { path throws(TransferFailure) in try Source(path, asMessage: arguments.asMessage) }
        } catch {
            Console.error("import: \(error.description)")
            return 1
        }
        let progress = Progress(total: sources.reduce(0) { $0 + $1.size })
        for file in sources.flatMap(\.skipped) { progress.skipped(file) }
        Memory.limitArenas()
        Memory.mapLargeBlocks()
        do {
            let outcome: (added: Int, skipped: Int, name: String)
            if let url = arguments.url {
                var token = getenv("MAILROOM_API_TOKEN").map { String(cString: $0) }
                if let file = arguments.tokenFile { token = try Password.apiToken(file: file) }
                outcome = try OnlineImport(url: url, token: token, mailbox: mailbox).run(sources, progress)
            } else {
                outcome = try OfflineImport(path: arguments.database, mailbox: mailbox).run(sources, progress)
            }
            progress.finish()
            let passedOver = progress.skippedFiles
            Console.out("import: \(outcome.added + outcome.skipped) messages read: \(outcome.added) added to "
                + "\(outcome.name), \(outcome.skipped) there already"
                + (passedOver > 0 ? ", \(passedOver) file\(passedOver == 1 ? "" : "s") skipped as not messages" : "")
                + " (\(progress.summary))")
            return 0
        } catch let failure as TransferFailure {
            progress.finish()
            Console.error("import: \(failure.description)")
            return 1
        } catch {
            progress.finish()
            Console.error("import: \(error)")
            return 1
        }
    }

    // MARK: Export

    /// Exit status: 0 written, 1 could not, 64 bad usage.
    static func exportMail(_ arguments: [String]) -> Int32 {
        guard let arguments = Arguments(arguments), arguments.url == nil, let mailbox = arguments.mailbox,
              arguments.paths.count <= 1
        else {
            Console.error(usage)
            return 64
        }
        let out = arguments.paths.first.flatMap { $0 == "-" ? nil : $0 }
        let descriptor: Int32
        if let out {
            // A new file only: an export never writes over one.
            descriptor = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                Console.error("export: cannot make \(out): \(String(cString: strerror(errno)))")
                return 1
            }
        } else {
            descriptor = 1
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        do {
            let exported = try Store.export(path: arguments.database, mailbox: mailbox) { message in
                let raw = message.raw ?? PostedMail.message(
                    subject: message.subject, author: message.author, body: message.body, date: message.createdAt,
                    id: message.id.rawValue)
                buffer += MboxWriter.entry(TagsHeader.exported(raw, tags: message.tags), sender: message.envelopeFrom,
                                           date: message.createdAt)
                if buffer.count >= 1 << 20 {
                    try writeAll(buffer, to: descriptor)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try writeAll(buffer, to: descriptor)
            if descriptor != 1 {
                guard fsync(descriptor) == 0, close(descriptor) == 0 else {
                    throw TransferFailure("could not finish writing \(out ?? ""): \(String(cString: strerror(errno)))")
                }
            }
            Console.error("export: \(exported.count) messages of \(exported.name) written to \(out ?? "standard output")")
            return 0
        } catch {
            Console.error("export: \(error)")
            if let out {
                close(descriptor)
                unlink(out)
            }
            return 1
        }
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw TransferFailure("could not write: \(String(cString: strerror(errno)))") }
            written += count
        }
    }
}

struct TransferFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A file or Maildir named on the command line.
struct Source {
    enum Kind {
        case mbox
        /// A file that is neither an mbox nor a message, taken whole as one message (`--as-message`).
        case whole
        case maildir([MaildirEntry])
    }

    let path: String
    let kind: Kind
    /// Bytes to read, for progress.
    let size: Int
    /// A Maildir's files that are not messages (symbolic links, folders, pipes): never read.
    var skipped: [Maildir.Skipped] = []

    /// Refuses a file that is neither an mbox nor a mail message (`MailFile.other`) unless
    /// `asMessage`.
    init(_ path: String, asMessage: Bool = false) throws(TransferFailure) {
        self.path = path
        if Maildir.isFolder(path) {
            guard Maildir.isMaildir(path), let (entries, skipped) = Maildir.listing(at: path) else {
                throw TransferFailure("\(path) is a folder but not a Maildir (it needs cur and new)")
            }
            kind = .maildir(entries)
            self.skipped = skipped
            size = entries.reduce(0) { total, entry in
                var info = stat()
                return total + (stat(entry.path, &info) == 0 ? Int(info.st_size) : 0)
            }
        } else {
            var info = stat()
            guard stat(path, &info) == 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
            guard access(path, R_OK) == 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
            size = Int(info.st_size)
            // A pipe is read once, as it streams by: it is taken for an mbox unseen.
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                kind = .mbox
                return
            }
            let start = try Self.contents(of: path, upTo: MailFile.lookedAt)
            switch MailFile(start: start[...], isWhole: start.count < MailFile.lookedAt) {
            case .other:
                guard asMessage else {
                    throw TransferFailure(MailImport.notMail(
                        LogLine.visible(path), remedy: "To import it as one message all the same, run the import again with --as-message."))
                }
                kind = .whole
            case .empty, .mbox, .message:
                kind = .mbox
            }
        }
    }

    /// The bytes of the file at `path`, the first `limit` of them at most.
    static func contents(of path: String, upTo limit: Int) throws(TransferFailure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// Hands each message to `each`, in order: its bytes, the postmark's sender, and a Maildir's
    /// read and flag state (nil for an mbox, whose state is in its headers).
    func read(_ progress: Progress, _ each: (_ raw: [UInt8], _ sender: String?, _ unread: Bool?, _ flagged: Bool?) throws -> Void) throws {
        switch kind {
        case .mbox:
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            var scanner = MboxScanner()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw TransferFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
                if count == 0 { break }
                try chunk.withUnsafeBytes { bytes in
                    try scanner.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { try each($0.raw, $0.sender, nil, nil) }
                }
                progress.read(count)
            }
            try scanner.finish { try each($0.raw, $0.sender, nil, nil) }
        case .whole:
            let raw = try Self.contents(of: path, upTo: Int.max)
            try each(raw, nil, nil, nil)
            progress.read(raw.count)
        case .maildir(let entries):
            for entry in entries {
                switch Maildir.contents(of: entry.path) {
                case .success(let raw):
                    try each(raw, nil, entry.isUnread, entry.isFlagged)
                    progress.read(raw.count)
                case .failure(let skipped):
                    // Swapped for a link (or gone) since it was listed: passed over like one found then.
                    progress.skipped(skipped)
                }
            }
        }
    }
}
