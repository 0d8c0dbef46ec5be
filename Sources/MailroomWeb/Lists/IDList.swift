import HTTP
import MailroomCore

/// Message ids in a URL, compact enough for a Select All of thousands: `3,7-12,15`.
///
/// Forms post one `selected=ID` per ticked box; redirects write one field with runs of
/// consecutive ids as ranges, so a fresh mailbox's Select All is a single `first-last`.
enum IDList {
    /// At most this many ids in one list, so a range like `1-999999999` cannot cost memory.
    static let limit = 100_000

    static func encode(_ ids: some Sequence<MessageID>) -> String {
        var runs: [String] = []
        var start: Int64?
        var end: Int64 = 0
        for id in ids.map(\.rawValue).sorted() {
            if start != nil, id == end + 1 {
                end = id
                continue
            }
            if let first = start { runs.append(run(first, end)) }
            start = id
            end = id
        }
        if let first = start { runs.append(run(first, end)) }
        return runs.joined(separator: ",")
    }

    private static func run(_ first: Int64, _ last: Int64) -> String {
        first == last ? String(first) : "\(first)-\(last)"
    }

    /// Every id in `values`, each of which is one id or a comma-separated list of ids and ranges.
    static func decode(_ values: [String], field: String) throws(HTTPError) -> [MessageID] {
        var ids: [MessageID] = []
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let bounds = item.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard let first = MessageID(bounds[0]),
                      let last = bounds.count == 2 ? MessageID(bounds[1]) : first,
                      first <= last
                else {
                    throw HTTPError(.badRequest, "“\(item)” is not a message id or a range of them (field \(field)).")
                }
                guard last.rawValue - first.rawValue < Int64(limit - ids.count) else {
                    throw HTTPError(.badRequest, "Field \(field) names more than \(limit) messages.")
                }
                for raw in first.rawValue...last.rawValue { ids.append(MessageID(raw)) }
            }
        }
        return ids
    }
}
