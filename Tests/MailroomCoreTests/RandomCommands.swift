import MailroomCore
import TestSupport
import Testing

/// Random library commands, valid and not, for property tests of the model.
enum ChangesPropertyTests {
    static let names = ["Work", "work", "Home", "Receipts", "  Travel ", "", text(41), "Inbox", "Ideas", "Later"]

    /// Runs one random command on `library`; returns what it did, for failure messages.
    static func randomCommand(
        on library: inout Library, random: inout SeededGenerator, clock: Int64
    ) throws(LibraryError) -> String {
        let all = library.mailboxes.map(\.id)
        let ownIDs = all.filter { !$0.isSystem }
        let unknown = MailboxID(rawValue: 9_999)
        let roll = random.below(100)
        switch roll {
        case 0..<22:
            let target = random.chance(1, in: 30) ? unknown : random.pick(all)
            let draft = random.chance(1, in: 8)
                ? Draft(subject: "   ") : Draft(subject: "Subject \(clock)", body: "Body \(clock)")
            let added = try library.add(draft, to: target, at: clock)
            return "add \(added.id) to \(target)"
        case 22..<37:
            let source = random.pick(all.filter { $0 != .trash })
            let ids = random.subset(of: library.ids(source)) + (random.chance(1, in: 5) ? messageIDs(99_999) : [])
            try library.move(ids, from: source, to: .trash)
            return "trash \(ids) from \(source)"
        case 37..<47:
            let ids = random.subset(of: library.ids(.trash)) + (random.chance(1, in: 5) ? messageIDs(1) : [])
            library.restore(ids)
            return "restore \(ids)"
        case 47..<55:
            let source = random.pick(all)
            let destination = random.pick(all + [unknown])
            let ids = random.subset(of: library.ids(source))
            try library.move(ids, from: source, to: destination)
            return "move \(ids) from \(source) to \(destination)"
        case 55..<61:
            let ids = random.subset(of: library.allMessageIDs)
            library.deletePermanently(ids)
            return "delete permanently \(ids)"
        case 61..<63:
            let count = library.emptyTrash()
            return "empty trash (\(count))"
        case 63..<68:
            let name = random.pick(Self.names)
            let id = try library.createMailbox(named: name)
            return "create \(id) \(name)"
        case 68..<71:
            let id = random.pick(all)
            let name = random.pick(Self.names)
            try library.renameMailbox(id, to: name)
            return "rename \(id) to \(name)"
        case 71..<74:
            let id = ownIDs.isEmpty || random.chance(1, in: 4) ? random.pick(all) : random.pick(ownIDs)
            try library.deleteMailbox(id)
            return "delete mailbox \(id)"
        case 74..<86:
            let box = random.pick(all)
            let count = library[box]?.count ?? 0
            let source = random.subset(of: Array(0..<count)) + (random.chance(1, in: 15) ? [count] : [])
            let destination = random.below(count + 2)  // count + 1 is out of range
            try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(fromOffsets: source, toOffset: destination)
            }
            return "reorder \(box) \(source) to \(destination)"
        case 86..<94:
            let box = random.pick(all)
            let ids = random.subset(of: library.ids(box))
            let on = random.chance(1, in: 2)
            let flag = random.chance(1, in: 2)
            _ = try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) -> BulkOutcome in
                flag ? mailbox.setFlagged(on, for: ids) : mailbox.setUnread(on, for: ids)
            }
            return "\(flag ? "flag" : "unread") \(on) \(ids) in \(box)"
        default:
            let box = random.pick(all)
            let id = library.ids(box).isEmpty || random.chance(1, in: 10) ? MessageID(99_999) : random.pick(library.ids(box))
            try library.update(box) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.edit(id, with: Draft(subject: "Edited \(clock)", body: "Changed"))
            }
            return "edit \(id) in \(box)"
        }
    }

    /// Things that must hold for every library a command leaves behind.
    static func invariantProblems(_ library: Library) -> [String] {
        var problems: [String] = []
        let ids = library.allMessageIDs
        if Set(ids).count != ids.count { problems.append("duplicate message ids \(ids)") }
        if let highest = ids.map(\.rawValue).max(), highest >= library.nextMessageID {
            problems.append("nextMessageID \(library.nextMessageID) not above \(highest)")
        }
        if Array(library.mailboxes.prefix(3).map(\.id)) != MailboxID.system { problems.append("system mailboxes not first") }
        let own = library.mailboxes.dropFirst(3).map(\.id)
        if own != own.sorted() { problems.append("own mailboxes out of order \(own)") }
        if let highest = own.map(\.rawValue).max(), highest >= library.nextMailboxID {
            problems.append("nextMailboxID \(library.nextMailboxID) not above \(highest)")
        }
        let names = library.mailboxes.map { $0.name.lowercased() }
        if Set(names).count != names.count { problems.append("duplicate names \(names)") }
        for mailbox in library.mailboxes where mailbox.id != .trash {
            for message in mailbox.messages where message.origin != nil {
                problems.append("\(message.id) in \(mailbox.id) still has an origin")
            }
        }
        return problems
    }

}
