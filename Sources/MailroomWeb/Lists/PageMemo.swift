import HTTP

/// The list pages one thread has answered since the store's last commit, by request target.
///
/// The app's kept pages (`MailroomApp.pages`) are shared by every loop thread, and finding one
/// takes three locks and a counter that both threads write: each moves a cache line from one
/// core to the other, a cost that a measurement in one thread does not show. While nothing is
/// committed, a thread answers a page it has answered before from its own memo, reading only
/// the store's revision, which no reader writes.
///
/// A memo is valid for one app (by `MailroomApp.serial`, never reused), one revision of the
/// whole store and one day: any commit, to any mailbox, empties it, so it is never less
/// current than the shared pages it holds copies of.
final class PageMemo {
    private var app: UInt64 = 0
    private var revision: Int64 = -1
    private var day: Int64 = -1
    private var pages: [String: KeptPage] = [:]
    private var cost = 0

    /// At most this many pages, and this many bytes of them, a thread: the shared pages hold
    /// the same bytes while they keep them.
    static let maxEntries = 32
    static let maxCost = 1 << 20

    /// The page kept for `target`, if it was kept for `app` at `revision` on `day`.
    func page(for target: String, app: UInt64, revision: Int64, day: Int64) -> KeptPage? {
        guard app == self.app, revision == self.revision, day == self.day else { return nil }
        return pages[target]
    }

    /// Keeps `page` for `target`, answered for `app` as of `revision` (read before the page was
    /// found or made) on `day`.
    func keep(_ page: KeptPage, for target: String, app: UInt64, revision: Int64, day: Int64) {
        let size = page.response.body.count
        guard size <= Self.maxCost else { return }
        if app != self.app || revision != self.revision || day != self.day {
            // A page of an older revision than the memo's is not kept over it.
            guard app != self.app || day != self.day || revision > self.revision else { return }
            (self.app, self.revision, self.day) = (app, revision, day)
            empty()
        }
        if pages.count >= Self.maxEntries || cost + size > Self.maxCost { empty() }
        cost += size - (pages.updateValue(page, forKey: target)?.response.body.count ?? 0)
    }

    private func empty() {
        pages = [:]
        cost = 0
    }

    /// This thread's memo; nil only if the system gives no thread-specific key.
    static var current: PageMemo? { slot.object { PageMemo() } }

    private static let slot = ThreadSlot<PageMemo>()
}
