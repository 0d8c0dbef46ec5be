import Compression
import Synchronization

/// The packer: raw mail kept as it came (files from before schema 13) compressed, and mail
/// compressed before its mailbox had a dictionary compressed again with it, in small batches.
/// Each batch is read and compressed on a reader connection, off the writer, then written in
/// one short transaction that makes no revision (nothing any page shows changes), so intake
/// waits for a batch's writes at most. A batch is durable on its own: a stop or a crash between
/// batches loses nothing, and the next start goes on from the first row not yet packed.
extension Store {
    /// Packs up to `limit` raw messages: first those kept as they came, then those packed
    /// without the dictionary their mailbox now has. How many rows it looked at; 0 when none is
    /// left to pack.
    @discardableResult
    public func packRaws(limit: Int = 64) throws(StoreError) -> Int {
        let batch = try read { reader throws(StoreError) in try reader.nextPacking(limit: limit, repackedAfter: repackedThrough.load(ordering: .relaxed)) }
        guard !batch.work.isEmpty || batch.plainFrom != nil else { return 0 }
        try writeDerived { transaction throws(StoreError) in
            for item in batch.work {
                // A row deleted meanwhile stays deleted; one packed meanwhile is not packed twice.
                let unless = item.repacking
                    ? "NOT EXISTS (SELECT 1 FROM raw_packing p WHERE p.id = r.id AND p.dictionary IS NULL)"
                    : "EXISTS (SELECT 1 FROM raw_packing p WHERE p.id = r.id)"
                _ = try transaction.replaceRaw(item.raw, with: item.blob, packing: item.packing, unless: unless)
            }
            if let from = batch.plainFrom {
                try transaction.run("UPDATE counters SET value = ? WHERE name = 'raw_packed_from'", [.integer(from)])
            }
        }
        if let last = batch.repackedThrough { repackedThrough.store(last, ordering: .relaxed) }
        return batch.looked
    }

    /// Makes a dictionary for each mailbox that holds `RawDictionaries.trainingThreshold` mailed
    /// messages and has none yet, trained (off the writer) on its first ones; a mailbox whose
    /// mail gives none gets an empty one, so it is not tried again. How many were made.
    @discardableResult
    public func trainRawDictionaries(at time: Int64) throws(StoreError) -> Int {
        let due = try read { reader throws(StoreError) in try reader.mailboxesDueADictionary() }
        for box in due {
            let samples = try read { reader throws(StoreError) in try reader.dictionarySamples(of: box) }
            let trained = Zstd.trainDictionary(samples: samples, capacity: RawDictionaries.capacity) ?? []
            try writeDerived { transaction throws(StoreError) in
                try transaction.run("INSERT INTO raw_dictionaries (mailbox, bytes, samples, created_at) VALUES (?, ?, ?, ?)",
                                    [.integer(box), .blob(trained), .integer(Int64(samples.count)), .integer(time)])
            }
            dictionaryEpoch.wrappingAdd(1, ordering: .releasing)
            // Mail already packed without it is looked at again from the start.
            repackedThrough.store(0, ordering: .relaxed)
        }
        return due.count
    }
}

/// One batch of the packer: each raw message's new bytes and how they are packed.
struct PackingBatch {
    struct Item {
        var raw: Int64
        var blob: [UInt8]
        var packing: RawPacking
        var repacking: Bool
    }

    var work: [Item] = []
    /// How many rows the batch looked at (some may have needed nothing).
    var looked = 0

    /// A batch stops taking mail once it holds this much.
    static let bytes = 8 << 20
    /// Where the plain rows go on from after this batch; nil once none is left.
    var plainFrom: Int64?
    /// The last row looked at for packing again with a dictionary.
    var repackedThrough: Int64?
}

extension Reader {
    func nextPacking(limit: Int, repackedAfter: Int64) throws(StoreError) -> PackingBatch {
        var batch = PackingBatch()
        let plainBelow = try counter("raw_plain_below")
        let from = try counter("raw_packed_from")
        if from < plainBelow {
            let rows = try database.prepare("SELECT id, length(bytes) FROM raw_mail WHERE id >= ? AND id < ? ORDER BY id LIMIT ?")
            try rows.bind([.integer(from), .integer(plainBelow), .integer(Int64(limit))])
            var found: [(raw: Int64, length: Int64)] = []
            while try rows.step() { found.append((try rows.integer(at: 0), try rows.integer(at: 1))) }
            batch.plainFrom = found.count < limit ? plainBelow : (found.last?.raw ?? from) + 1
            var held = 0
            for (raw, length) in found {
                // A batch holds a few MiB at most: the next one goes on from here.
                guard held < PackingBatch.bytes else {
                    batch.plainFrom = raw
                    break
                }
                batch.looked += 1
                // Mail larger than a batch stays as it came: rewriting it would hold the writer,
                // and every commit waiting on it, for as long as the copy takes.
                guard length <= PackingBatch.bytes else { continue }
                // A row that cannot be packed (damaged, say) stays as it is, and the packer goes
                // on past it rather than stopping at it for good; `mailroom check` names it.
                do throws(StoreError) {
                    guard try database.packing(ofRaw: raw) == nil, let bytes = try database.rawBytes(raw) else { continue }
                    let dictionary = try mailboxOf(raw: raw).map { box throws(StoreError) in try database.dictionary(forMailbox: box) } ?? nil
                    let (blob, packing) = try database.pack(bytes, dictionary: dictionary)
                    batch.work.append(.init(raw: raw, blob: blob, packing: packing, repacking: false))
                    held += bytes.count
                } catch {
                    continue
                }
            }
            if !found.isEmpty { return batch }
        }
        // Mail of more than one frame gains nothing from a dictionary, and is left as it is.
        let rows = try database.prepare("""
            SELECT p.id, max(d.id) FROM raw_packing p JOIN mail x ON x.raw = p.id JOIN messages m ON m.id = x.id
                JOIN raw_dictionaries d ON d.mailbox = m.mailbox AND length(d.bytes) > 0
            WHERE p.dictionary IS NULL AND p.id > ? AND p.length <= ? GROUP BY p.id ORDER BY p.id LIMIT ?
            """)
        try rows.bind([.integer(repackedAfter), .integer(Int64(RawPacking.frameBytes)), .integer(Int64(limit))])
        var found: [(raw: Int64, dictionary: Int64)] = []
        while try rows.step() { found.append((try rows.integer(at: 0), try rows.integer(at: 1))) }
        var held = 0
        for (raw, id) in found where held < PackingBatch.bytes {
            batch.looked += 1
            batch.repackedThrough = raw
            do throws(StoreError) {
                // A damaged dictionary packs nothing again (`mailroom check` names it).
                guard let dictionary = try database.usableDictionary(id),
                      let packing = try database.packing(ofRaw: raw), let bytes = try database.rawBytes(raw) else { continue }
                // Bytes that no longer match their record are left for `mailroom check` to report,
                // not given a new record that would hide the damage.
                guard packing.describes(bytes) else { continue }
                let (blob, repacked) = try database.pack(bytes, dictionary: (id, dictionary))
                batch.work.append(.init(raw: raw, blob: blob, packing: repacked, repacking: true))
                held += bytes.count
            } catch {
                continue
            }
        }
        return batch
    }

    /// The mailbox of the first message that holds raw message `raw`.
    private func mailboxOf(raw: Int64) throws(StoreError) -> Int64? {
        let statement = try database.cached("SELECT m.mailbox FROM mail x JOIN messages m ON m.id = x.id WHERE x.raw = ? ORDER BY x.id LIMIT 1")
        try statement.bind([.integer(raw)])
        defer { statement.reset() }
        return try statement.step() ? try statement.integer(at: 0) : nil
    }

    /// The mailboxes with `RawDictionaries.trainingThreshold` mailed messages among their first
    /// `RawDictionaries.samples` and no dictionary yet.
    func mailboxesDueADictionary() throws(StoreError) -> [Int64] {
        let statement = try database.prepare("""
            SELECT b.id FROM mailboxes b
            WHERE b.total >= ?1 AND NOT EXISTS (SELECT 1 FROM raw_dictionaries d WHERE d.mailbox = b.id)
                AND (SELECT count(*) FROM (SELECT m.id FROM messages m WHERE m.mailbox = b.id ORDER BY m.rank LIMIT ?2) f
                     JOIN mail x ON x.id = f.id) >= ?1
            ORDER BY b.id
            """)
        // Only the first messages are looked at (as many as are sampled), so a mailbox of a
        // million posted messages costs as little as a small one.
        try statement.bind([.integer(Int64(RawDictionaries.trainingThreshold)), .integer(Int64(RawDictionaries.samples))])
        var due: [Int64] = []
        while try statement.step() { due.append(try statement.integer(at: 0)) }
        return due
    }

    /// The start of each of `box`'s first mailed messages, in the order they arrived.
    func dictionarySamples(of box: Int64) throws(StoreError) -> [[UInt8]] {
        let statement = try database.prepare("""
            SELECT x.raw FROM messages m JOIN mail x ON x.id = m.id WHERE m.mailbox = ? ORDER BY m.rank LIMIT ?
            """)
        try statement.bind([.integer(box), .integer(Int64(RawDictionaries.samples))])
        var raws: [Int64] = []
        while try statement.step() { raws.append(try statement.integer(at: 0)) }
        var samples: [[UInt8]] = []
        for raw in raws {
            guard let length = try database.rawLength(raw), length > 0,
                  let sample = try database.rawBytes(raw, at: 0, count: min(length, RawDictionaries.sampleBytes)) else { continue }
            samples.append(sample)
        }
        return samples
    }
}

extension Store {
    /// About how many raw messages are still kept as they came (ids not yet passed by the packer).
    public func rawMailLeftToPack() throws(StoreError) -> Int64 {
        try read { reader throws(StoreError) in
            max(0, try reader.counter("raw_plain_below") - reader.counter("raw_packed_from"))
        }
    }
}
