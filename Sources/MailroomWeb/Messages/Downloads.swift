import HTTP
import MailroomMail
import MailroomStore
import Synchronization

/// The cap on large downloads in progress at once: each streams from the file and holds a piece
/// or two in memory, so the cap bounds what downloads cost however many clients ask.
final class DownloadSlots: Sendable {
    /// Downloads this large or larger are streamed and take a slot; smaller ones are answered
    /// whole, as any page is.
    static let largeDownload = 1 << 20
    static let defaultLimit = 16

    let limit: Int
    private let taken = Atomic<Int>(0)

    init(limit: Int = DownloadSlots.defaultLimit) {
        self.limit = limit
    }

    /// How many slots are in use now.
    var inUse: Int { taken.load(ordering: .relaxed) }

    /// A slot, or nil when all are taken.
    func take() -> Slot? {
        while true {
            let current = taken.load(ordering: .relaxed)
            guard current < limit else { return nil }
            if taken.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing).exchanged {
                return Slot(self)
            }
        }
    }

    /// One download's place under the cap, given back when the download lets go of it, however
    /// it ends (written, failed, or its connection closed).
    final class Slot: Sendable {
        private let slots: DownloadSlots

        fileprivate init(_ slots: DownloadSlots) {
            self.slots = slots
        }

        deinit { slots.taken.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
    }

    /// The answer when every slot is taken.
    static func busy() -> HTTPError {
        HTTPError(.serviceUnavailable, "Too many large downloads are in progress. Try again in a moment.",
                  headers: ["Retry-After": "1"])
    }
}

/// A run of a raw message's bytes, read from the file a piece at a time as the connection sends
/// them, and decoded as it goes when it is an encoded part.
///
/// Each piece is read in a read transaction of its own rather than one held for the whole
/// download: a slow reader would otherwise hold a snapshot for minutes, and SQLite could not
/// checkpoint the log past it, which would grow with every commit meanwhile. Raw ids are never
/// reused, so a later piece is the same message's bytes, or none when it was deleted for good
/// (the download then ends short, and the connection closes).
///
/// `@unchecked Sendable`: the connection writing the body uses it from one thread at a time.
final class StoredBody: BodySource, @unchecked Sendable {
    let length: Int
    private let store: Store
    private let raw: Int64
    /// The next raw byte to read, and the end of the run.
    private var offset: Int
    private let end: Int
    private let decoder: PartDecoder?
    private var isDecoded = false
    /// Held for as long as the body is, and given back with it.
    private let slot: DownloadSlots.Slot?
    /// Told why a piece could not be read: the client only sees the body end short.
    private let report: @Sendable (String) -> Void

    /// `length` bytes made from raw message `raw`'s bytes `run`, through `decoder` when given.
    init(store: Store, raw: Int64, run: Range<Int>, decoder: PartDecoder?, length: Int, slot: DownloadSlots.Slot?,
         report: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.raw = raw
        self.offset = run.lowerBound
        self.end = run.upperBound
        self.decoder = decoder
        self.length = length
        self.slot = slot
        self.report = report
    }

    func next(atMost limit: Int) -> [UInt8]? {
        // Decoding makes no more bytes than it reads (base64 three for four), so a piece read at
        // `limit` decodes to at most `limit`.
        while offset < end {
            let count = min(limit, end - offset)
            let start = offset
            let piece: [UInt8]
            do throws(StoreError) {
                // Nil when the message was deleted for good meanwhile: no problem, only an end.
                guard let read = try store.read({ reader throws(StoreError) in try reader.rawMail(raw, at: start, count: count) })
                else { return nil }
                piece = read
            } catch {
                report("a download of raw mail \(raw) stopped at byte \(start) of \(end): \(error)")
                return nil
            }
            offset += count
            guard let decoder else { return piece }
            let decoded = decoder.decode(piece)
            if !decoded.isEmpty { return decoded }
        }
        guard let decoder, !isDecoded else { return [] }
        isDecoded = true
        return decoder.finish()
    }
}
