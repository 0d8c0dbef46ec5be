import Digests
import Glibc
import MailroomCore
import MailroomMail
import MailroomService
import MailroomStore
import MailroomWeb
import Testing

/// `mailroom import` and `mailroom export` as someone moving in from another tool runs them:
/// mbox files with their quirks, a Maildir, into a file offline and into a running Mailroom.
@Suite struct ImportExportTests {
    /// A scratch folder under /tmp, removed with everything in it.
    final class Folder {
        let path = "/tmp/mailroom-import-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        init() { mkdir(path, 0o755) }
        deinit { _ = system("rm -rf '\(path)'") }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            try write(name, bytes: Array(text.utf8))
        }

        @discardableResult
        func write(_ name: String, bytes: [UInt8]) throws -> String {
            let file = path + "/" + name
            guard let handle = fopen(file, "wb") else { throw TestFailure("cannot write \(file)") }
            defer { fclose(handle) }
            _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, handle) }
            return file
        }

        func read(_ name: String) -> String? {
            guard let handle = fopen(path + "/" + name, "rb") else { return nil }
            defer { fclose(handle) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while case let count = fread(&chunk, 1, chunk.count, handle), count > 0 { bytes += chunk[0..<count] }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// One finished run of `mailroom`.
    struct Run {
        let outputText: String
        let errorText: String
        let status: Int32
    }

    /// Runs `mailroom ARGUMENTS` to its end.
    private func mailroom(_ arguments: [String]) throws -> Run {
        let program = try ChildProcess(executable: try MailroomExecutable.path(), arguments: arguments)
        let status = try program.waitForExit(within: 60)
        return Run(outputText: program.outputText, errorText: program.errorText, status: status)
    }

    /// An mbox as `mailroom export` writes it (postmark dates are the messages' Date headers),
    /// with a body `From ` line quoted, a CRLF message, and no newline after the last line.
    static let mbox = """
        From ann@example.test Mon Jan  1 09:00:00 2024\r
        From: Ann <ann@example.test>\r
        Subject: CRLF and quoted\r
        Date: Mon, 01 Jan 2024 09:00:00 +0000\r
        Status: RO\r
        \r
        >From the top of a line.\r
        Plain line.\r
        \r
        From bob@example.test Tue Jan  2 10:30:00 2024
        From: Bob <bob@example.test>
        Subject: Flagged, with a paragraph
        Date: Tue, 02 Jan 2024 10:30:00 +0000
        X-Status: F

        Text, then
        From the middle of a paragraph, unquoted by a careless tool.

        From cy@example.test Wed Jan  3 11:45:00 2024
        From: Cy <cy@example.test>
        Subject: Last
        Date: Wed, 03 Jan 2024 11:45:00 +0000

        No newline at the end
        """

    @Test func anMboxImportsOnceWithItsQuirksAndExportsByteForByte() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-mbox")
        let file = try folder.write("old.mbox", Self.mbox)
        let first = try mailroom(["import", "--db", database.path, "--mailbox", "Old mail", file])
        #expect(first.outputText.contains("3 messages read: 3 added to Old mail, 0 there already"), "\(first.errorText)")
        // Run again (as after an interruption): nothing is added twice.
        let again = try mailroom(["import", "--db", database.path, "--mailbox", "old mail", file])
        #expect(again.outputText.contains("3 messages read: 0 added to Old mail, 3 there already"), "\(again.errorText)")

        let store = try Store(path: database.path)
        let box = try #require(try store.read { reader throws(StoreError) in try reader.mailboxes() }.first { $0.name == "Old mail" })
        let messages = try store.library()[box.id]?.messages ?? []
        store.close()
        // The file's last message is on top, as if each had just arrived in turn.
        #expect(messages.map(\.subject) == ["Last", "Flagged, with a paragraph", "CRLF and quoted"])
        #expect(messages.map(\.isUnread) == [true, true, false])
        #expect(messages.map(\.isFlagged) == [false, true, false])
        #expect(messages.map(\.author) == ["Cy", "Bob", "Ann"])
        #expect(messages[1].body.contains("From the middle of a paragraph"))
        #expect(messages[2].body.hasPrefix("From the top of a line."))

        let export = try mailroom(["export", "--db", database.path, "--mailbox", "Old mail", folder.path + "/out.mbox"])
        #expect(export.errorText.contains("3 messages of Old mail written"), "\(export.errorText)")
        // Byte for byte, but for the careless tool's unquoted line, which comes back quoted, and
        // the last line, which comes back with its newline and the separating empty line.
        let expected = Self.mbox
            .replacingOccurrences("\nFrom the middle", with: "\n>From the middle")
            + "\n\n"
        #expect(folder.read("out.mbox") == expected)
        let check = try mailroom(["check", "--db", database.path])
        #expect(check.outputText.contains("is in order"), "\(check.errorText)")
        // Imported again, the export's messages are all known, the last one too, which now ends
        // in a newline, and the careless tool's, which is now quoted.
        let back = try mailroom(["import", "--db", database.path, "--mailbox", "Round trip", folder.path + "/out.mbox"])
        #expect(back.outputText.contains("3 messages read: 0 added to Round trip, 3 there already"), "\(back.outputText)")
    }

    /// The server for the tests that import through `--url`, behind a password with an API token.
    private func server(_ database: ScratchDatabase, _ folder: Folder) throws -> (RunningMailroom, url: String, token: String) {
        let password = try folder.write("password", "door-key\n")
        let token = try folder.write("token", "import-token-123\n")
        let server = try RunningMailroom(database: database.path, extra: ["--password-file", password, "--api-token-file", token])
        return (server, "http://127.0.0.1:\(server.port)", token)
    }

    @Test func anImportOfItsOwnExportAddsNothingOfflineOrThroughTheURLAlike() throws {
        let folder = Folder()
        let file = try folder.write("old.mbox", Self.mbox)
        let offline = ScratchDatabase("import-round-offline")
        let online = ScratchDatabase("import-round-online")
        let first = try mailroom(["import", "--db", offline.path, "--mailbox", "Old", file])
        #expect(first.outputText.contains("3 messages read: 3 added to Old, 0 there already"), "\(first.errorText)")

        let (server, url, token) = try server(online, folder)
        defer { _ = try? server.stop() }
        let sent = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Old", file])
        #expect(sent.outputText.contains("3 messages read: 3 added to Old, 0 there already"), "\(sent.errorText)")
        let exported = try mailroom(["export", "--db", online.path, "--mailbox", "Old", folder.path + "/online.mbox"])
        #expect(exported.status == 0, "\(exported.errorText)")
        let offlineExport = try mailroom(["export", "--db", offline.path, "--mailbox", "Old", folder.path + "/offline.mbox"])
        #expect(offlineExport.status == 0, "\(offlineExport.errorText)")

        // Each path takes back its own export, the other's, and the original, all as known.
        for name in ["online.mbox", "offline.mbox", "old.mbox"] {
            let back = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Old", folder.path + "/" + name])
            #expect(back.outputText.contains("3 messages read: 0 added to Old, 3 there already"), "\(name): \(back.outputText) \(back.errorText)")
            let backOffline = try mailroom(["import", "--db", offline.path, "--mailbox", "Old", folder.path + "/" + name])
            #expect(backOffline.outputText.contains("3 messages read: 0 added to Old, 3 there already"),
                    "\(name): \(backOffline.outputText) \(backOffline.errorText)")
        }
    }

    /// The Old mail mailbox of a new file at `path` holding the test mbox's messages as an import
    /// kept them when its key was the SHA-256 of the bytes as read: of each message as read from
    /// the file (offline), or with the final newline that `--url` sent it with.
    private func keptWithFormerKeys(at path: String, throughURL: Bool) throws {
        var messages: [[UInt8]] = []
        var scanner = MboxScanner()
        Array(Self.mbox.utf8).withUnsafeBytes { bytes in scanner.feed(bytes) { messages.append($0.raw) } }
        scanner.finish { messages.append($0.raw) }
        if throughURL { messages = messages.map { $0.last == 10 ? $0 : $0 + [10] } }
        let store = try Store(path: path)
        defer { store.close() }
        _ = try store.write { transaction throws(StoreError) -> Int in
            let box = try MailImport.mailbox(named: "Old mail", transaction)
            let kept = messages.map { raw in
                var imported = MailImport.prepare(raw, sender: nil, now: 0)
                imported.key = MailDigest.sha256(raw)
                imported.formerKeys = []
                return imported
            }
            return try transaction.importMail(kept, to: box)
        }
    }

    @Test func mailImportedUnderTheFormerKeysIsStillKnown() throws {
        let folder = Folder()
        let file = try folder.write("old.mbox", Self.mbox)
        let offline = ScratchDatabase("import-former-offline")
        try keptWithFormerKeys(at: offline.path, throughURL: false)
        let again = try mailroom(["import", "--db", offline.path, "--mailbox", "Old mail", file])
        #expect(again.outputText.contains("3 messages read: 0 added to Old mail, 3 there already"), "\(again.errorText)")
        // Its export too, where the last message has gained a newline.
        let export = try mailroom(["export", "--db", offline.path, "--mailbox", "Old mail", folder.path + "/out.mbox"])
        #expect(export.status == 0, "\(export.errorText)")
        let back = try mailroom(["import", "--db", offline.path, "--mailbox", "Old mail", folder.path + "/out.mbox"])
        #expect(back.outputText.contains("3 messages read: 0 added to Old mail, 3 there already"), "\(back.errorText)")

        let online = ScratchDatabase("import-former-online")
        try keptWithFormerKeys(at: online.path, throughURL: true)
        let (server, url, token) = try server(online, folder)
        defer { _ = try? server.stop() }
        let sent = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Old mail", file])
        #expect(sent.outputText.contains("3 messages read: 0 added to Old mail, 3 there already"), "\(sent.errorText)")
    }

    /// The first bytes of a PNG picture, and a note with no header: neither is mail.
    static let picture: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]
    static let note = "Shopping list, for Saturday\neggs\nmilk\n"

    @Test func aFileThatIsNotMailIsRefusedOfflineUnlessTakenAsOneMessage() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-not-mail")
        let mbox = try folder.write("old.mbox", Self.mbox)
        let picture = try folder.write("picture.png", bytes: Self.picture)
        let note = try folder.write("note.txt", Self.note)
        let eml = try folder.write("one.eml", "Subject: An .eml file\r\nFrom: Ann <ann@example.test>\r\n\r\nBody.\r\n")
        let setUp = try mailroom(["import", "--db", database.path, "--mailbox", "Inbox", eml])
        #expect(setUp.outputText.contains("1 messages read: 1 added to Inbox"), "\(setUp.errorText)")

        // Named after a good mbox, the picture is refused before the mbox is stored.
        let refused = try mailroom(["import", "--db", database.path, "--mailbox", "Pictures", mbox, picture])
        #expect(refused.status == 1)
        #expect(refused.errorText.contains("\(picture) is neither an mbox file"), "\(refused.errorText)")
        #expect(refused.errorText.contains("run the import again with --as-message"))
        #expect(refused.outputText.isEmpty)
        let notes = try mailroom(["import", "--db", database.path, "--mailbox", "Pictures", note])
        #expect(notes.status == 1)
        #expect(notes.errorText.contains("\(note) is neither an mbox file"), "\(notes.errorText)")
        let store = try Store(path: database.path)
        let names = try store.read { reader throws(StoreError) in try reader.mailboxes() }.map(\.name)
        store.close()
        #expect(!names.contains("Pictures"))

        let taken = try mailroom(["import", "--db", database.path, "--as-message", "--mailbox", "Pictures", picture, note])
        #expect(taken.status == 0, "\(taken.errorText)")
        #expect(taken.outputText.contains("2 messages read: 2 added to Pictures, 0 there already"), "\(taken.outputText)")
    }

    @Test func aRunningMailroomRefusesABodyThatIsNotMailWithA422() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-not-mail-online")
        let (server, url, token) = try server(database, folder)
        defer { _ = try? server.stop() }
        let picture = try folder.write("picture.png", bytes: Self.picture)

        let refused = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Pictures", picture])
        #expect(refused.status == 1)
        #expect(refused.errorText.contains("\(picture) is neither an mbox file"), "\(refused.errorText)")
        #expect(refused.errorText.contains("--as-message"))

        let client = HTTPClient(port: server.port)
        let bearer = [("Authorization", "Bearer import-token-123")]
        for type in ["application/mbox", "message/rfc822"] {
            for body in [Self.picture, Array(Self.note.utf8)] {
                let answer = try client.send("POST", "/api/v1/import?mailbox=Pictures", headers: bearer + [("Content-Type", type)], body: body)
                #expect(answer.status == 422, "\(type): \(answer.text)")
                #expect(answer.text.contains("The body is neither an mbox file"), "\(answer.text)")
                #expect(answer.text.contains("add as-message=1 to the query"))
            }
        }
        let boxes = try client.send("GET", "/api/v1/mailboxes", headers: bearer)
        #expect(!boxes.text.contains("Pictures"), "nothing is made for a refused body")
        let anyway = try client.send("POST", "/api/v1/import?mailbox=Pictures&as-message=1",
                                     headers: bearer + [("Content-Type", "application/mbox")], body: Self.picture)
        #expect(anyway.status == 200, "\(anyway.text)")
        #expect(anyway.text.contains("\"added\":1"))
        let sent = try mailroom(["import", "--url", url, "--token-file", token, "--as-message", "--mailbox", "Pictures", picture])
        #expect(sent.outputText.contains("1 messages read: 0 added to Pictures, 1 there already"), "\(sent.outputText) \(sent.errorText)")
    }

    @Test func aMaildirWithNewAndCurImportsTwiceAsOnce() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-maildir")
        for sub in ["", "/cur", "/new", "/tmp"] { mkdir(folder.path + "/Maildir" + sub, 0o755) }
        try folder.write("Maildir/cur/1700000001.M1P1.host:2,S", "Subject: Read one\nDate: Tue, 14 Nov 2023 22:13:21 +0000\n\nSeen.\n")
        try folder.write("Maildir/cur/1700000002.M2P1.host:2,FS", "Subject: Read and flagged\n\nBoth.\n")
        try folder.write("Maildir/cur/1700000003.M3P1.host:2,", "Subject: Not seen yet\n\nUnread in cur.\n")
        try folder.write("Maildir/new/1700000004.M4P1.host", "Subject: Brand new\n\nJust delivered.\n")
        try folder.write("Maildir/tmp/1700000005.M5P1.host", "Subject: Half written\n\nNot finished.\n")
        // Delivery order is the order of the files' times (their names start with them too).
        for (name, time) in [("cur/1700000001.M1P1.host:2,S", 1), ("cur/1700000002.M2P1.host:2,FS", 2),
                             ("cur/1700000003.M3P1.host:2,", 3), ("new/1700000004.M4P1.host", 4)] {
            var times = [timespec(tv_sec: 1_700_000_000 + time, tv_nsec: 0), timespec(tv_sec: 1_700_000_000 + time, tv_nsec: 0)]
            utimensat(AT_FDCWD, folder.path + "/Maildir/" + name, &times, 0)
        }
        let first = try mailroom(["import", "--db", database.path, "--mailbox", "Archive", folder.path + "/Maildir"])
        #expect(first.outputText.contains("4 messages read: 4 added to Archive, 0 there already"), "\(first.errorText)")
        let again = try mailroom(["import", "--db", database.path, "--mailbox", "Archive", folder.path + "/Maildir"])
        #expect(again.outputText.contains("4 messages read: 0 added to Archive, 4 there already"), "\(again.errorText)")
        let store = try Store(path: database.path)
        defer { store.close() }
        let messages = try store.library()[.archive]?.messages ?? []
        #expect(messages.map(\.subject) == ["Brand new", "Not seen yet", "Read and flagged", "Read one"])
        #expect(messages.map(\.isUnread) == [true, true, false, false])
        #expect(messages.map(\.isFlagged) == [false, false, true, false])
        #expect(messages.last?.createdAt == 1_700_000_001, "a message's time is its Date")
    }

    @Test func aRunningMailroomTakesTheImportThroughItsAPIWithItsToken() throws {
        let folder = Folder()
        let database = ScratchDatabase("import-online")
        let password = try folder.write("password", "door-key\n")
        let token = try folder.write("token", "import-token-123\n")
        let server = try RunningMailroom(database: database.path, extra: ["--password-file", password, "--api-token-file", token])
        defer { _ = try? server.stop() }
        let file = try folder.write("old.mbox", Self.mbox)
        let url = "http://127.0.0.1:\(server.port)"

        // The file is the server's: an import without --url says what to do instead.
        let offline = try mailroom(["import", "--db", database.path, "--mailbox", "Old", file])
        #expect(offline.errorText.contains("in use by a running Mailroom: import through it with --url"))
        let refused = try mailroom(["import", "--url", url, "--mailbox", "Old", file])
        #expect(refused.status == 1)
        #expect(refused.errorText.contains("refused the import (HTTP/1.1 401"), "\(refused.errorText)")

        let first = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Old", file])
        #expect(first.outputText.contains("3 messages read: 3 added to Old, 0 there already"), "\(first.errorText)")
        let again = try mailroom(["import", "--url", url, "--token-file", token, "--mailbox", "Old", file])
        #expect(again.outputText.contains("3 messages read: 0 added to Old, 3 there already"), "\(again.errorText)")

        let client = HTTPClient(port: server.port)
        let bearer = [("Authorization", "Bearer import-token-123")]
        let boxes = try client.send("GET", "/api/v1/mailboxes", headers: bearer)
        let listed = boxes.text
        #expect(listed.contains("\"name\":\"Old\""))
        let slug = try #require(listed.range(of: #"\{"id":"(\d+)","name":"Old""#, options: .regularExpression)
            .map { String(listed[$0].dropFirst(7).prefix { $0 != "\"" }) })
        let list = try client.send("GET", "/api/v1/messages?mailbox=\(slug)", headers: bearer)
        #expect(list.text.contains("\"subject\":\"Last\""))
        #expect(list.text.contains("\"subject\":\"CRLF and quoted\""))

        // What the endpoint refuses, each with a JSON error.
        let mbox = [("Content-Type", "application/mbox")]
        let wrongType = try client.send("POST", "/api/v1/import?mailbox=Old", headers: bearer + [("Content-Type", "text/plain")], body: [65])
        #expect(wrongType.status == 415)
        let noMailbox = try client.send("POST", "/api/v1/import", headers: bearer + mbox, body: Array(Self.mbox.utf8))
        #expect(noMailbox.status == 400)
        #expect(noMailbox.text.contains("Name the mailbox"))
        let trash = try client.send("POST", "/api/v1/import?mailbox=Trash", headers: bearer + mbox, body: Array(Self.mbox.utf8))
        #expect(trash.status == 400)
        #expect(trash.text.contains("cannot be imported into Trash"))
        let read = try client.send("GET", "/api/v1/import", headers: bearer)
        #expect(read.status == 405)
        let oneMessage = try client.send("POST", "/api/v1/import?mailbox=Old&unread=0&flagged=1",
                                         headers: bearer + [("Content-Type", "message/rfc822")],
                                         body: Array("Subject: Posted raw\r\n\r\nOne message.\r\n".utf8))
        #expect(oneMessage.status == 200)
        #expect(oneMessage.text.contains("\"added\":1"))
        // A body larger than --max-body (64 KiB) is taken on this one path.
        let big = "From a@b.test Mon Jan  1 09:00:00 2024\nSubject: Big\n\n" + String(repeating: "word ", count: 40_000) + "\n"
        let large = try client.send("POST", "/api/v1/import?mailbox=Old", headers: bearer + mbox, body: Array(big.utf8))
        #expect(large.status == 200, "\(large.text)")
        let elsewhere = try HTTPClient(port: server.port).send("POST", "/api/v1/messages/read", headers: bearer + [("Content-Type", "application/json")], body: Array(big.utf8))
        #expect(elsewhere.status == 413)
        // Behind a password, only the API token lets a body that large in: without it, or with
        // a wrong one, it is refused before Mailroom holds it.
        let anonymous = try HTTPClient(port: server.port).send("POST", "/api/v1/import?mailbox=Old", headers: mbox, body: Array(big.utf8))
        #expect(anonymous.status == 413)
        let guessed = try HTTPClient(port: server.port).send(
            "POST", "/api/v1/import?mailbox=Old", headers: [("Authorization", "Bearer import-token-124")] + mbox, body: Array(big.utf8))
        #expect(guessed.status == 413)
    }

    @Test func badUsageAndMissingFilesAreSaid() throws {
        let database = ScratchDatabase("import-usage")
        let usage = try mailroom(["import", "--db", database.path, "some.mbox"])
        #expect(usage.status == 64)
        #expect(usage.errorText.contains("Usage: mailroom import"))
        let missing = try mailroom(["import", "--db", database.path, "--mailbox", "X", "/tmp/no-such-mailroom-file.mbox"])
        #expect(missing.status == 1)
        #expect(missing.errorText.contains("cannot read /tmp/no-such-mailroom-file.mbox"))
        let folder = Folder()
        let notMaildir = try mailroom(["import", "--db", database.path, "--mailbox", "X", folder.path])
        #expect(notMaildir.errorText.contains("not a Maildir"))
        let noBox = try mailroom(["export", "--db", database.path, "--mailbox", "Nowhere"])
        #expect(noBox.status == 1)
    }
}

private extension String {
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
