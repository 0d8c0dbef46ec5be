import Glibc
import MailroomCore
import MailroomStore
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
            let file = path + "/" + name
            guard let handle = fopen(file, "wb") else { throw TestFailure("cannot write \(file)") }
            defer { fclose(handle) }
            let bytes = Array(text.utf8)
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
        // Imported again, the export's messages are known by their bytes, but for the last one,
        // which now ends in a newline.
        let back = try mailroom(["import", "--db", database.path, "--mailbox", "Round trip", folder.path + "/out.mbox"])
        #expect(back.outputText.contains("3 messages read: 1 added to Round trip, 2 there already"), "\(back.outputText)")
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
