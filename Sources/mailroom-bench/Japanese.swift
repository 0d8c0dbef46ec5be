import Glibc
import MailroomCore
import MailroomStore

/// `mailroom-bench japanese PATH COUNT` gives COUNT messages of PATH's Inbox, spread evenly
/// through its ids, a Japanese subject (for the substring search of scripts/bench-scale), and
/// writes their old subjects to PATH.japanese; `mailroom-bench japanese PATH --undo` puts them
/// back and removes that file. The seed itself is left as it was, so it stays reusable.
enum Japanese {
    static let usage = "usage: mailroom-bench japanese PATH COUNT | mailroom-bench japanese PATH --undo"

    /// One in eight of the changed messages has スキャン inside a longer run of kana and kanji.
    static let subjects: [(String, String)] = [
        ("請求書のスキャン（", "枚）を送付します"), ("会議の議事録（第", "回）"), ("来週の打ち合わせについて（", "）"),
        ("見積書の確認をお願いします（", "）"), ("出張報告書（", "件目）"), ("システム保守のお知らせ（", "）"),
        ("新しいプリンターの設定方法（", "）"), ("経費精算の締め切り（", "日）"),
    ]

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2 else {
            print(usage)
            return 2
        }
        let path = arguments[0]
        let saved = path + ".japanese"
        do {
            let store = try Store(path: path)
            defer { store.close() }
            if arguments[1] == "--undo" {
                try undo(store, from: saved)
                return 0
            }
            guard let count = Int(arguments[1]), count > 0 else {
                print(usage)
                return 2
            }
            // A file left by a run that stopped half way is put back first.
            if access(saved, F_OK) == 0 { try undo(store, from: saved) }
            try apply(store, count: count, savingTo: saved)
            return 0
        } catch {
            print("mailroom-bench japanese: \(error)")
            return 1
        }
    }

    static func apply(_ store: Store, count: Int, savingTo saved: String) throws {
        let total = try store.read { reader throws(StoreError) in try reader.count(in: .inbox, enteredBy: .max) }
        let step = max(total / count, 1)
        guard let file = fopen(saved, "w") else { throw BenchError("cannot write \(saved)") }
        defer { fclose(file) }
        let ids = (1...count).map { Int64($0 * step) }.filter { $0 <= Int64(total) }
        var index = 0
        for start in stride(from: 0, to: ids.count, by: 2_000) {
            // Read first, then write: the originals as they are, before any change.
            let messages = try store.read { reader throws(StoreError) in
                var found: [Message] = []
                for id in ids[start..<min(start + 2_000, ids.count)] {
                    if let (message, mailbox) = try reader.message(MessageID(id)), mailbox == .inbox { found.append(message) }
                }
                return found
            }
            // Subjects of the seed are one line without tabs.
            for message in messages { fputs("\(message.id.rawValue)\t\(message.subject)\n", file) }
            fflush(file)
            try store.write { transaction in
                for message in messages {
                    let (before, after) = subjects[index % subjects.count]
                    let subject = before + String(index / subjects.count + 1) + after
                    try transaction.edit(message.id, with: Draft(subject: subject, body: message.body))
                    index += 1
                }
            }
        }
    }

    static func undo(_ store: Store, from saved: String) throws {
        guard let file = fopen(saved, "r") else { return }
        var lines: [(Int64, String)] = []
        var buffer = [CChar](repeating: 0, count: 4_096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let fields = line.dropLast(line.hasSuffix("\n") ? 1 : 0).split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            if fields.count == 2, let id = Int64(fields[0]) { lines.append((id, String(fields[1]))) }
        }
        fclose(file)
        for start in stride(from: 0, to: lines.count, by: 2_000) {
            let batch = lines[start..<min(start + 2_000, lines.count)]
            let bodies = try store.read { reader throws(StoreError) in
                var found: [String?] = []
                for (id, _) in batch { found.append(try reader.message(MessageID(id))?.message.body) }
                return found
            }
            try store.write { transaction in
                for ((id, subject), body) in zip(batch, bodies) {
                    guard let body else { continue }
                    try transaction.edit(MessageID(id), with: Draft(subject: subject, body: body))
                }
            }
        }
        unlink(saved)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
