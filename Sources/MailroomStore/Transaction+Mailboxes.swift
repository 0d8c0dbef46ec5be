import MailroomCore

/// People's own mailboxes: create, rename, delete.
extension Transaction {
    /// Makes a new mailbox of one's own, at the end of the list.
    @discardableResult
    public func createMailbox(named name: String) throws(StoreError) -> MailboxID {
        let checked = try checkedName(name, renaming: nil)
        let id = MailboxID(rawValue: try takeCounter(Counter.nextMailboxID))
        try run("INSERT INTO mailboxes (id, name) VALUES (?, ?)", [.integer(id.rawValue), .text(checked)])
        return id
    }

    public func renameMailbox(_ id: MailboxID, to name: String) throws(StoreError) {
        guard !id.isSystem else { throw .refused(.systemMailbox(id)) }
        try requireMailbox(id)
        try run("UPDATE mailboxes SET name = ? WHERE id = ?", [.text(try checkedName(name, renaming: id)), .integer(id.rawValue)])
    }

    /// Removes one of people's own mailboxes; its messages go to Trash, from where Restore
    /// brings them to the Inbox.
    @discardableResult
    public func deleteMailbox(_ id: MailboxID) throws(StoreError) -> Int {
        guard !id.isSystem else { throw .refused(.systemMailbox(id)) }
        try requireMailbox(id)
        let ids = try rows("WHERE m.mailbox = ? ORDER BY m.rank DESC", [.integer(id.rawValue)]).map(\.message.id)
        try move(ids, from: id, to: .trash)
        try run("DELETE FROM mailboxes WHERE id = ?", [.integer(id.rawValue)])
        return ids.count
    }

    private func checkedName(_ name: String, renaming id: MailboxID?) throws(StoreError) -> String {
        let existing = try mailboxes().map { (id: $0.id, name: $0.name) }
        do {
            return try Library.checkedName(name, renaming: id, among: existing)
        } catch {
            throw .refused(error)
        }
    }
}
