import HTTP
import Synchronization

/// Whole list pages, kept while the library is at the same revision.
///
/// A page is a function of the library's revision, its address and the day (see `PageTag`), so
/// the answer made for one request, head prepared and security headers included, serves every
/// later request with the same ETag until something is stored. Bounded in pages and bytes; a
/// change of revision empties it.
final class PageCache: Sendable {
    private struct Pages {
        var revision = -1
        var bytes = 0
        var pages: [String: Response] = [:]
    }

    private let state = Mutex(Pages())
    private let maxPages: Int
    private let maxBytes: Int

    init(maxPages: Int = 256, maxBytes: Int = 8 << 20) {
        self.maxPages = maxPages
        self.maxBytes = maxBytes
    }

    func page(_ tag: String, revision: Int) -> Response? {
        state.withLock { $0.revision == revision ? $0.pages[tag] : nil }
    }

    func store(_ page: Response, tag: String, revision: Int) {
        state.withLock { state in
            if state.revision != revision {
                // Older pages can never be asked for again; a newer revision's are not ours to drop.
                guard revision > state.revision else { return }
                state = Pages(revision: revision)
            }
            if state.pages.count >= maxPages || state.bytes + page.body.count > maxBytes {
                state.pages = [:]
                state.bytes = 0
            }
            guard page.body.count <= maxBytes else { return }
            state.pages[tag] = page
            state.bytes += page.body.count
        }
    }
}
