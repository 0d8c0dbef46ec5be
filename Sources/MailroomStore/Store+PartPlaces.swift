extension Store {
    /// Records where the attachments of raw message `raw` lie, by part number, for mail stored
    /// before places were kept: found by one parse at its first download, so later downloads
    /// read their part alone. A part that already has a place keeps it.
    public func recordPlaces(ofRaw raw: Int64, _ places: [Int: StoredAttachment.Place]) throws(StoreError) {
        guard !places.isEmpty else { return }
        try writeDerived { transaction throws(StoreError) in
            for (part, place) in places.sorted(by: { $0.key < $1.key }) {
                try transaction.run("""
                    UPDATE attachments SET content_start = ?, content_length = ?, encoding = ?
                    WHERE raw = ? AND part = ? AND content_start IS NULL
                    """, [.integer(Int64(place.start)), .integer(Int64(place.length)), .text(place.encoding),
                          .integer(raw), .integer(Int64(part))])
            }
        }
    }
}
