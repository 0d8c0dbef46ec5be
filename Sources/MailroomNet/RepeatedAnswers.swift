import Glibc
import HTTP

/// The answers one loop may send again for a request it has answered before, byte for byte,
/// from the same address: a client polling a page or fetching the stylesheet again is answered
/// without parsing, routing or asking the application, while the answer says it is current
/// (`Response.repeatable`). A miss costs a comparison of the first bytes of a few entries.
///
/// Only GETs answered whole from memory are kept (no stream, no waiting on a commit): at most
/// `maxEntries` of them, each request at most `maxRequestBytes`, each body at most
/// `maxBodyBytes` and all bodies together at most `maxCost`. A body is the application's own
/// (shared, not copied), but an entry can keep it after the application has let it go.
struct RepeatedAnswers {
    struct Entry {
        let request: [UInt8]
        let peer: String
        let response: Response
        let condition: Repeatable
        let target: String
        let echoKeepAlive: Bool
        /// The head as last sent, and the `Date` it carries: made again once a second.
        var head: [UInt8] = []
        var date = ""
        /// That head and the body in a file, for a body large enough (`AnswerFile.threshold`).
        var file: AnswerFile?
    }

    private var entries: [Entry] = []
    private var cost = 0

    static let maxEntries = 16
    static let maxRequestBytes = 2_048
    /// Small answers only: sending a large one costs so much more than finding it (a page of
    /// 500 rows, 360 KiB) that skipping the app saves little, while holding such pages after
    /// the app lets them go keeps megabytes in the server's memory.
    static let maxBodyBytes = 128 << 10
    static let maxCost = 1 << 20

    /// The entry whose request `input` starts with, from `peer`, if it is still current, with
    /// its head for `date`; a stale one found on the way is dropped.
    mutating func answer(for input: [UInt8], peer: String, date: String) -> Entry? {
        guard !entries.isEmpty else { return nil }
        return input.withUnsafeBytes { bytes -> Entry? in
            for index in entries.indices {
                let request = entries[index].request
                guard request.count <= bytes.count else { continue }
                let same = request.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, $0.count) == 0 }
                guard same, entries[index].peer == peer else { continue }
                guard entries[index].condition.isCurrent else {
                    remove(at: index)
                    return nil
                }
                if entries[index].date != date {
                    let entry = entries[index]
                    let head = entry.response.head(keepAlive: true, echoKeepAlive: entry.echoKeepAlive, date: date)
                    entries[index].head = head
                    entries[index].date = date
                    let body = entry.response.body
                    entries[index].file = body.count >= AnswerFile.threshold ? AnswerFile(head: head, body: body) : nil
                }
                return entries[index]
            }
            return nil
        }
    }

    /// Keeps `response` as the answer to `request` from `peer`, if it may be repeated; the
    /// oldest goes when full. (A request kept already is answered by `answer(for:)` until its
    /// entry goes stale and is dropped, so it never reaches here twice.)
    mutating func keep(_ request: ArraySlice<UInt8>, peer: String, response: Response, target: String, echoKeepAlive: Bool) {
        guard let condition = response.repeatable, request.count <= Self.maxRequestBytes, response.stream == nil,
              response.body.count <= Self.maxBodyBytes else { return }
        let bytes = Array(request)
        while !entries.isEmpty && (entries.count >= Self.maxEntries || cost + response.body.count > Self.maxCost) {
            remove(at: 0)
        }
        entries.append(Entry(
            request: bytes, peer: peer, response: response, condition: condition, target: target, echoKeepAlive: echoKeepAlive))
        cost += response.body.count
    }

    private mutating func remove(at index: Int) {
        cost -= entries.remove(at: index).response.body.count
    }
}
