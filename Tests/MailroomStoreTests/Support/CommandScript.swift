import MailroomCore
import TestSupport

/// Runs random, valid commands on a library, the kinds people run through the pages.
struct CommandScript {
    enum Kind: CaseIterable {
        case add, moveBetweenMailboxes, moveToTrash, restore, deletePermanently, emptyTrash
        case createMailbox, renameMailbox, deleteMailbox, reorder, moveByStep, flag, markUnread, edit, removeAtOffsets
    }

    private var random: SeededGenerator
    private var counter = 0
    private var time: Int64 = 1_700_000_000
    /// The kinds of command that have changed the library so far.
    private(set) var ran: Set<Kind> = []

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    private static let subjects = [
        "Lunch on Friday?", "Ünïcödé ✉️ 🎉", "O'Brien said \"hi\"", "'; DROP TABLE messages; --",
        "<b>not bold</b> & more", "日本語の件名", String(repeating: "x", count: 190), "?1 :name @p $v",
    ]
    private static let bodies = [
        "", "line one\nline two", "a NUL\u{0}inside", "%s %d %@", String(repeating: "long ", count: 1_990),
    ]
    private static let authors = ["", "Ann", "Zoë Ñúñez"]

    /// Runs one command on `library` and says what it was.
    mutating func runOne(on library: inout Library) throws -> String {
        counter += 1
        time += Int64.random(in: 1...600, using: &random)
        let kind = pickKind()
        let before = library
        let said = try run(kind, on: &library)
        if library != before { ran.insert(kind) }
        return said
    }

    private mutating func pickKind() -> Kind {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<26: .add
        case 26..<34: .moveBetweenMailboxes
        case 34..<44: .moveToTrash
        case 44..<50: .restore
        case 50..<53: .deletePermanently
        case 53..<54: .emptyTrash
        case 54..<59: .createMailbox
        case 59..<62: .renameMailbox
        case 62..<65: .deleteMailbox
        case 65..<75: .reorder
        case 75..<79: .moveByStep
        case 79..<86: .flag
        case 86..<91: .markUnread
        case 91..<96: .edit
        default: .removeAtOffsets
        }
    }

    private mutating func run(_ kind: Kind, on library: inout Library) throws -> String {
        switch kind {
        case .add:
            let box = pick(library.mailboxes).id
            let message = try library.add(draft(), to: box, at: time)
            return "add \(message.id) to \(box)"
        case .moveBetweenMailboxes:
            guard let source = pickNonEmpty(library) else { return "nothing to move" }
            let destination = pick(library.mailboxes.filter { $0.id != source.id }).id
            let ids = subset(of: source.ids)
            try library.move(ids, from: source.id, to: destination)
            return "move \(ids) from \(source.id) to \(destination)"
        case .moveToTrash:
            guard let source = pickNonEmpty(library, where: { $0.id != .trash }) else { return "nothing to trash" }
            let ids = subset(of: source.ids)
            try library.move(ids, from: source.id, to: .trash)
            return "trash \(ids) from \(source.id)"
        case .restore:
            let ids = subset(of: library[.trash]?.ids ?? []) + [MessageID(999_999)]
            library.restore(ids)
            return "restore \(ids)"
        case .deletePermanently:
            let ids = subset(of: library[.trash]?.ids ?? [])
            library.deletePermanently(ids)
            return "delete permanently \(ids)"
        case .emptyTrash:
            return "empty trash of \(library.emptyTrash())"
        case .createMailbox:
            let name = pick(["Box", "Projets 🗂", "Receipts", "O'Neil"]) + " \(counter)"
            let id = try library.createMailbox(named: name)
            return "create \(id) \(name)"
        case .renameMailbox:
            guard let box = pickCustom(library) else { return "no mailbox to rename" }
            let name = "Renamed \(counter)"
            try library.renameMailbox(box.id, to: name)
            return "rename \(box.id) to \(name)"
        case .deleteMailbox:
            guard let box = pickCustom(library) else { return "no mailbox to delete" }
            try library.deleteMailbox(box.id)
            return "delete mailbox \(box.id)"
        case .reorder:
            guard let box = pickNonEmpty(library) else { return "nothing to reorder" }
            let offsets = subset(of: Array(box.messages.indices))
            let destination = Int.random(in: 0...box.count, using: &random)
            try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(fromOffsets: offsets, toOffset: destination)
            }
            return "in \(box.id) move offsets \(offsets) to \(destination)"
        case .moveByStep:
            guard let box = pickNonEmpty(library) else { return "nothing to step" }
            let id = pick(box.ids)
            let step: MoveStep = Bool.random(using: &random) ? .up : .down
            try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(id, by: step)
            }
            return "move \(id) \(step) in \(box.id)"
        case .flag:
            guard let box = pickNonEmpty(library) else { return "nothing to flag" }
            let ids = subset(of: box.ids)
            let flagged = Bool.random(using: &random)
            _ = try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                mailbox.setFlagged(flagged, for: ids)
            }
            return "flag \(flagged) \(ids) in \(box.id)"
        case .markUnread:
            guard let box = pickNonEmpty(library) else { return "nothing to mark" }
            let ids = subset(of: box.ids)
            let unread = Bool.random(using: &random)
            _ = try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                mailbox.setUnread(unread, for: ids)
            }
            return "unread \(unread) \(ids) in \(box.id)"
        case .edit:
            guard let box = pickNonEmpty(library) else { return "nothing to edit" }
            let id = pick(box.ids)
            let newDraft = draft()
            try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.edit(id, with: newDraft)
            }
            return "edit \(id) in \(box.id)"
        case .removeAtOffsets:
            guard let box = pickNonEmpty(library) else { return "nothing to remove" }
            let offsets = subset(of: Array(box.messages.indices))
            try library.update(box.id) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.remove(atOffsets: offsets)
            }
            return "in \(box.id) remove offsets \(offsets)"
        }
    }

    private mutating func draft() -> Draft {
        Draft(
            subject: pick(Self.subjects) + " #\(counter)", body: pick(Self.bodies), author: pick(Self.authors))
    }

    private mutating func pick<Element>(_ elements: [Element]) -> Element {
        precondition(!elements.isEmpty, "nothing to pick from")
        return elements[Int.random(in: elements.indices, using: &random)]
    }

    private mutating func pickNonEmpty(_ library: Library, where include: (Mailbox) -> Bool = { _ in true }) -> Mailbox? {
        let candidates = library.mailboxes.filter { !$0.isEmpty && include($0) }
        return candidates.isEmpty ? nil : pick(candidates)
    }

    private mutating func pickCustom(_ library: Library) -> Mailbox? {
        let custom = library.mailboxes.filter { !$0.id.isSystem }
        return custom.isEmpty ? nil : pick(custom)
    }

    /// A non-empty random subset, in random order.
    private mutating func subset<Element>(of elements: [Element]) -> [Element] {
        guard !elements.isEmpty else { return [] }
        let chosen = elements.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
        return chosen.isEmpty ? [pick(elements)] : chosen.shuffled(using: &random)
    }
}
