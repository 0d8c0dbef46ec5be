import HTTP
import MailroomCore
import MailroomService
import MailroomStore

/// The Inbox read by position, as other tools' APIs page it (`start=100&limit=50`), on
/// Mailroom's keyset underneath: each page remembers where the next one starts, per Inbox
/// revision, so a client paging on takes one keyset step a page however deep it goes. A jump
/// to a position nobody paged to walks the mailbox's rank index (a list) or pages of matches
/// (a search) once.
final class InboxPages: Sendable {
    let web: MailroomApp
    /// Where each `start` began: the key of the row just above it.
    let positions = RevisionCache<Position, Int64>(maxEntries: 4_096)

    struct Position: Hashable, Sendable {
        /// The search's text in Mailroom's grammar; empty for the plain list.
        var search: String
        var start: Int
    }

    init(web: MailroomApp) {
        self.web = web
        web.service.dropsStale(positions)
    }

    /// `limit` rows from position `start` (0: the top) of the Inbox, or of what `search` matches
    /// in it, newest first, and what `extra` reads about them from the same snapshot; nil past
    /// the end. `total` is how many rows there are (a mailbox's kept count, or a search's).
    func rows<Extra>(
        _ search: SearchQuery?, text: String, start: Int, limit: Int, total: Int,
        _ extra: (Reader, [Message]) throws(StoreError) -> Extra
    ) throws(HTTPError) -> ([Message], Extra)? {
        guard start < total, limit > 0 else { return nil }
        let revision = web.service.revision(of: .inbox)
        let positions = positions
        return try web.reading { reader throws(StoreError) -> ([Message], Extra)? in
            var place = PagePlace.top
            if start > 0 {
                if let known = positions.value(Position(search: text, start: start), in: .inbox, revision: revision) {
                    place = .below(known)
                } else if let search {
                    var walked = 0
                    var key: Int64?
                    while walked < start {
                        let step = min(start - walked, 500)
                        let slice = try reader.search(search, in: .inbox, from: key.map { .below($0) } ?? .top, limit: step)
                        let keys = key.map { last in slice.keys.filter { $0 < last } } ?? slice.keys
                        guard let last = keys.last else { return nil }
                        walked += keys.count
                        key = last
                        positions.store(last, for: Position(search: text, start: walked), in: .inbox, revision: revision)
                    }
                    guard let key else { return nil }
                    place = .below(key)
                } else {
                    guard let key = try reader.key(at: start - 1, in: .inbox) else { return nil }
                    place = .below(key)
                }
            }
            let found: ListSlice
            if let search {
                found = try reader.search(search, in: .inbox, from: place, limit: limit)
            } else {
                found = try reader.page(of: .inbox, from: place, limit: limit)
            }
            // Past the end the store answers with the last page, none of which lies below.
            var rows: [Message] = []
            var last: Int64?
            for (row, key) in zip(found.rows, found.keys) {
                if case .below(let bound) = place, key >= bound { continue }
                rows.append(row)
                last = key
            }
            guard let last else { return nil }
            positions.store(last, for: Position(search: text, start: start + rows.count), in: .inbox, revision: revision)
            return (rows, try extra(reader, rows))
        }
    }
}
