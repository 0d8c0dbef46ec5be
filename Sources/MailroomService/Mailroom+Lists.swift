import MailroomCore
import MailroomStore

/// List commands as the doors run them: from a list's page (a state to show next), or on
/// messages named by id or by a search, wherever they are.
extension Mailroom {
    /// Runs `command` posted from `box`'s page showing `state` and answers the state to show
    /// next, with what to tell the person. `counted` is how many "all N" said, when it did.
    public func run(
        _ command: ListCommand, in box: MailboxID, state: ListState, pageSize: Int, counted: Int? = nil
    ) throws(ServiceError) -> (ListState, Notice?) {
        try performing(touching: command.touches(in: box)) { transaction throws(ServiceError) in
            try command.apply(to: transaction, in: box, state: state, pageSize: pageSize, counted: counted)
        }
    }

    /// How a command on named messages went: how many it changed, and how many were gone.
    public struct Tally: Sendable, Equatable {
        public var changed: Int
        public var gone: Int

        public init(changed: Int, gone: Int) {
            self.changed = changed
            self.gone = gone
        }
    }

    /// Runs `command` on messages by id, each in the mailbox it is in now; an id not found
    /// counts as gone.
    public func run(_ command: ListCommand, on ids: [MessageID], pageSize: Int) throws(ServiceError) -> Tally {
        try performing { transaction throws(ServiceError) -> Tally in
            var byMailbox: [MailboxID: [MessageID]] = [:]
            var outcome = Tally(changed: 0, gone: 0)
            for id in ids {
                if let box = try storing({ () throws(StoreError) in try transaction.mailbox(of: id) }) {
                    byMailbox[box, default: []].append(id)
                } else {
                    outcome.gone += 1
                }
            }
            for (box, ids) in byMailbox.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let state = ListState(mode: .active, selection: ids)
                let (_, notice) = try command.apply(to: transaction, in: box, state: state, pageSize: pageSize)
                outcome.changed += notice?.count ?? 0
                outcome.gone += notice?.gone ?? 0
            }
            return outcome
        }
    }

    /// Runs `command` on what `search` matches in `box` (everything, when it is empty) among
    /// the messages there at `revision`: never on mail that arrived since.
    public func run(
        _ command: ListCommand, matching search: String, in box: MailboxID, asOf revision: Int64, pageSize: Int
    ) throws(ServiceError) -> Tally {
        var state = ListState(mode: .active, allAsOf: revision)
        state.search = search
        return try performing(touching: command.touches(in: box)) { transaction throws(ServiceError) -> Tally in
            let (_, notice) = try command.apply(to: transaction, in: box, state: state, pageSize: pageSize)
            return Tally(changed: notice?.count ?? 0, gone: notice?.gone ?? 0)
        }
    }
}
