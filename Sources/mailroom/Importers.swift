import Dispatch
import Glibc
import HTTP
import MailroomCore
import MailroomMail
import MailroomNet
import MailroomService
import MailroomStore
import MailroomWeb

/// `mailroom import` into a file no Mailroom has open: one thread reads and parses, this one
/// stores, a commit (durable) every second or 64 MiB, written with a rollback journal (see
/// `Store.startLoading`). Killed halfway, what was committed stays, and running it again skips it,
/// so a killed import redoes at most a second. Each commit journals again the pages every batch
/// touches (the import keys' index, the search index's segments), so fewer, larger commits write
/// them less often. The hand-off holds 16 MiB, so the reader keeps going while a commit waits
/// for its sync.
struct OfflineImport {
    let path: String
    let mailbox: String

    private func open() throws -> Store {
        let opened: Result<Store, StoreError> = Result { () throws(StoreError) in try Store(path: path, backingUpBeforeMigrating: true) }
        switch opened {
        case .success(let store): return store
        case .failure(.locked):
            throw TransferFailure("\(path) is in use by a running Mailroom: import through it with --url http://HOST:PORT "
                + "(the address it serves), or stop it first")
        case .failure(let error): throw error
        }
    }

    func run(_ sources: [Source], _ progress: Progress) throws -> (added: Int, skipped: Int, name: String) {
        let store = try open()
        defer { store.close() }
        try store.setWriterCache(megabytes: 16)
        try store.startLoading()
        let (box, name) = try store.write { transaction throws -> (MailboxID, String) in
            let box = try MailImport.mailbox(named: mailbox, transaction)
            return (box, try transaction.mailboxes().first { $0.id == box }?.name ?? mailbox)
        }
        let handoff = Handoff(limit: 16 << 20)
        let now = Int64(time(nil))
        let packer = store.packer(for: box)
        DispatchQueue(label: "mailroom.import.read").async {
            do {
                for source in sources {
                    try source.read(progress) { raw, sender, unread, flagged in
                        var prepared = MailImport.prepare(raw, sender: sender, isUnread: unread, isFlagged: flagged, now: now)
                        // Compressed here, beside the parse, rather than on the writing thread.
                        packer?.pack(&prepared.mail)
                        handoff.put(prepared)
                    }
                }
                handoff.close(nil)
            } catch {
                handoff.close(error)
            }
        }
        var added = 0
        var skipped = 0
        var finished = false
        var sinceTrim = 0
        while !finished {
            // One transaction takes what the reader hands over, a hand-off at a time, until a
            // second has passed or 64 MiB are in it; then it commits (durably).
            let began = Progress.seconds()
            let stored = try store.write { transaction throws -> Int in
                var stored = 0
                var bytes = 0
                while Progress.seconds() - began < 1 && bytes < 64 << 20 {
                    let messages = handoff.takeAll()
                    if messages.isEmpty {
                        finished = true
                        break
                    }
                    let outcome = try MailImport.store(messages, in: box, transaction)
                    added += outcome.added
                    skipped += outcome.skipped
                    stored += messages.count
                    let size = messages.reduce(0) { $0 + $1.size }
                    bytes += size
                    sinceTrim += size
                    // What stored messages took goes back to the system every 16 MiB: left to
                    // malloc, the reading thread's arena grew to 250 MiB.
                    if sinceTrim >= 16 << 20 {
                        Memory.handBackUnused()
                        sinceTrim = 0
                    }
                }
                return stored
            }
            progress.stored(stored)
        }
        try store.finishLoading()
        if let error = handoff.failure { throw error }
        return (added, skipped, name)
    }
}

/// Messages passed from the reading thread to the storing one, at most `limit` bytes of them
/// waiting at once, each counted with 4 KiB for what its parsed parts take besides its bytes
/// (most mail is small: a queue of 16 MiB of bytes alone held 20,000 messages).
final class Handoff: @unchecked Sendable {
    private let limit: Int
    private var queue: [ImportedMail] = []
    private var bytes = 0
    private var closed = false
    private(set) var failure: Error?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    func put(_ message: ImportedMail) {
        pthread_mutex_lock(mutex)
        let cost = message.size + 4_096
        while bytes > 0 && bytes + cost > limit { pthread_cond_wait(changed, mutex) }
        queue.append(message)
        bytes += cost
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }

    /// Every message waiting (at least one); empty once the reader is done and all were taken.
    func takeAll() -> [ImportedMail] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while queue.isEmpty && !closed { pthread_cond_wait(changed, mutex) }
        let taken = queue
        queue = []
        bytes = 0
        pthread_cond_broadcast(changed)
        return taken
    }

    func close(_ error: Error?) {
        pthread_mutex_lock(mutex)
        closed = true
        failure = error
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }
}

/// `mailroom import --url`: the mail goes to a running Mailroom as mbox, a batch of up to 8 MiB
/// per `POST /api/v1/import`, each stored there in one commit before the next is sent.
struct OnlineImport {
    let url: String
    let token: String?
    let mailbox: String

    func run(_ sources: [Source], _ progress: Progress) throws -> (added: Int, skipped: Int, name: String) {
        let (host, port) = try Self.address(url)
        let connection: ClientSocket
        do {
            connection = try ClientSocket(host: host, port: port)
        } catch {
            throw TransferFailure(error.message)
        }
        defer { connection.close() }
        var added = 0
        var skipped = 0
        var batch: [UInt8] = []
        var count = 0
        var state: (Bool?, Bool?) = (nil, nil)
        let now = Int64(time(nil))
        func send() throws {
            guard count > 0 else { return }
            var query = [("mailbox", mailbox)]
            if let unread = state.0 { query.append(("unread", unread ? "1" : "0")) }
            if let flagged = state.1 { query.append(("flagged", flagged ? "1" : "0")) }
            let answer = try post("/api/v1/import?" + FormData(query).urlEncoded, batch, host: host, port: port, on: connection)
            added += answer.added
            skipped += answer.skipped
            progress.stored(count)
            batch.removeAll(keepingCapacity: true)
            count = 0
        }
        for source in sources {
            try source.read(progress) { raw, sender, unread, flagged in
                let entry = MboxWriter.entry(raw, sender: sender, date: now)
                // A Maildir's state goes in the query, so a batch holds messages of one state.
                if (unread, flagged) != state || batch.count + entry.count > 8 << 20 { try send() }
                state = (unread, flagged)
                guard entry.count <= MailroomApp.maximumImportBytes - 4_096 else {
                    throw TransferFailure("a message of \(raw.count >> 20) MiB in \(source.path) is larger than Mailroom takes")
                }
                batch += entry
                count += 1
            }
        }
        try send()
        let name = mailbox
        return (added, skipped, name)
    }

    /// `http://HOST:PORT` (or `http://[::1]:PORT`), nothing else.
    static func address(_ url: String) throws -> (host: String, port: Int) {
        guard url.hasPrefix("http://") else {
            throw TransferFailure("--url must be http://HOST:PORT, the address Mailroom serves (not \(url))")
        }
        var rest = url.dropFirst(7)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let host: Substring
        var portText: Substring = "80"
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw TransferFailure("cannot read --url \(url)") }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains("/"), let port = Int(portText), (1...65535).contains(port) else {
            throw TransferFailure("cannot read --url \(url); give it as http://HOST:PORT")
        }
        return (String(host), port)
    }

    private func post(_ target: String, _ body: [UInt8], host: String, port: Int, on connection: ClientSocket) throws -> (added: Int, skipped: Int) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var head = "POST \(target) HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/mbox\r\n"
            + "Content-Length: \(body.count)\r\nAccept: application/json\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        head += "\r\n"
        do {
            try connection.write(Array(head.utf8) + body)
            let status = try connection.readLine()
            var length = 0
            while true {
                let line = try connection.readLine()
                if line.isEmpty { break }
                if line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst(15).trimmingCharacters(in: " \t")) ?? 0
                }
            }
            let answer = try connection.read(length)
            let code = Int(status.split(separator: " ").dropFirst().first ?? "") ?? 0
            let json = try? JSON.parse(answer)
            guard code == 200, let json, case .number(let added)? = json["added"], case .number(let skipped)? = json["skipped"] else {
                var said = String(decoding: answer, as: UTF8.self)
                if let json, case .string(let error)? = json["error"] { said = error }
                throw TransferFailure("Mailroom at \(authority) refused the import (\(status)): \(said)")
            }
            return (Int(added), Int(skipped))
        } catch let failure as ClientSocketError {
            throw TransferFailure("\(failure.message) (at \(authority))")
        }
    }
}
