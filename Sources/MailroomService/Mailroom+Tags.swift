import MailroomCore
import MailroomStore

/// Tags by name, for scripts (Mailpit's tag calls): each runs in the group commit. A tag names
/// messages in any mailbox, so every mailbox's cached pages are renewed.
extension Mailroom {
    /// Every tag on a message outside Trash, with its counts there, by name.
    public func tags() throws(ServiceError) -> [TagSummary] {
        try read { reader throws(StoreError) in try reader.tags() }
    }

    /// Makes `names` the whole set of tags of each of `ids` (an id not found is passed over);
    /// how many were found. Names that clean to nothing are refused.
    @discardableResult
    public func setTags(_ names: [String], of ids: [MessageID]) throws(ServiceError) -> Int {
        let cleaned = try Self.tagNames(names)
        return try performing { transaction throws(ServiceError) in
            try storing { () throws(StoreError) in try transaction.setTags(cleaned, of: ids) }
        }
    }

    /// Renames tag `old` to `new` on every message that has it.
    public func renameTag(_ old: String, to new: String) throws(ServiceError) {
        guard let cleaned = Tag.cleaned(new) else {
            throw .badInput("“\(new)” is not a tag name: use letters, digits, spaces, - _ . and @.")
        }
        try performing { transaction throws(ServiceError) in
            guard try storing({ () throws(StoreError) in try transaction.tag(named: old) }) != nil else {
                throw .notFound("There is no tag “\(old)”.")
            }
            try storing { () throws(StoreError) in try transaction.renameTag(old, to: cleaned) }
        }
    }

    /// Takes tag `name` off every message; the messages stay.
    public func deleteTag(_ name: String) throws(ServiceError) {
        try performing { transaction throws(ServiceError) in
            guard try storing({ () throws(StoreError) in try transaction.deleteTag(name) }) else {
                throw .notFound("There is no tag “\(name)”.")
            }
        }
    }

    /// `names` cleaned (`Tag.cleaned`), each once; one that cleans to nothing is refused.
    static func tagNames(_ names: [String]) throws(ServiceError) -> [String] {
        var cleaned: [String] = []
        for name in names {
            guard let tag = Tag.cleaned(name) else {
                throw .badInput("“\(name)” is not a tag name: use letters, digits, spaces, - _ . and @.")
            }
            cleaned.append(tag)
        }
        return Tag.unique(cleaned)
    }
}
