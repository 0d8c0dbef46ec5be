import CCompression

/// A zstd dictionary, ready on both sides: made once from its bytes and used for every frame
/// that names it. Read-only once made, so one may serve every thread.
public final class ZstdDictionary: @unchecked Sendable {
    public let bytes: [UInt8]
    fileprivate let compressing: OpaquePointer
    fileprivate let decompressing: OpaquePointer

    /// nil when zstd cannot load `bytes` as a dictionary.
    public init?(_ bytes: [UInt8], level: Int32 = Zstd.level) {
        guard !bytes.isEmpty else { return nil }
        let made = bytes.withUnsafeBytes { raw in
            (ZSTD_createCDict(raw.baseAddress, raw.count, level), ZSTD_createDDict(raw.baseAddress, raw.count))
        }
        guard let compressing = made.0, let decompressing = made.1 else {
            ZSTD_freeCDict(made.0)
            ZSTD_freeDDict(made.1)
            return nil
        }
        self.bytes = bytes
        self.compressing = compressing
        self.decompressing = decompressing
    }

    deinit {
        ZSTD_freeCDict(compressing)
        ZSTD_freeDDict(decompressing)
    }
}

/// One thread's zstd contexts, kept from frame to frame (a context costs more to make than a
/// small mail costs to compress). Not for two threads at once.
public final class ZstdCodec {
    private let compressor: OpaquePointer
    private let decompressor: OpaquePointer

    public init?() {
        guard let compressor = ZSTD_createCCtx() else { return nil }
        guard let decompressor = ZSTD_createDCtx() else {
            ZSTD_freeCCtx(compressor)
            return nil
        }
        // Each frame carries a checksum of what it holds, so damage is found when it is read.
        ZSTD_CCtx_setParameter(compressor, ZSTD_c_compressionLevel, Zstd.level)
        ZSTD_CCtx_setParameter(compressor, ZSTD_c_checksumFlag, 1)
        self.compressor = compressor
        self.decompressor = decompressor
    }

    deinit {
        ZSTD_freeCCtx(compressor)
        ZSTD_freeDCtx(decompressor)
    }

    /// `input` as one zstd frame (its size and checksum recorded in it), with `dictionary` when
    /// given; nil only when zstd fails.
    public func compress(_ input: UnsafeRawBufferPointer, dictionary: ZstdDictionary?) -> [UInt8]? {
        let bound = ZSTD_compressBound(input.count)
        var output = [UInt8](repeating: 0, count: bound)
        // A dictionary is referenced for this frame only (none clears the last one).
        guard ZSTD_isError(ZSTD_CCtx_refCDict(compressor, dictionary?.compressing)) == 0 else { return nil }
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compress2(compressor, out.baseAddress, out.count, input.baseAddress, input.count)
        }
        guard ZSTD_isError(written) == 0 else { return nil }
        output.removeLast(output.count - written)
        return output
    }

    /// Decompresses the one frame `frame` into `output`, which must be exactly as long as what
    /// the frame holds: false for anything else (a damaged frame, another dictionary, another
    /// length), with `output` then undefined.
    public func decompress(_ frame: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                           dictionary: ZstdDictionary?) -> Bool {
        let made = if let dictionary {
            ZSTD_decompress_usingDDict(decompressor, output.baseAddress, output.count, frame.baseAddress, frame.count,
                                       dictionary.decompressing)
        } else {
            ZSTD_decompressDCtx(decompressor, output.baseAddress, output.count, frame.baseAddress, frame.count)
        }
        return ZSTD_isError(made) == 0 && made == output.count
    }
}

public enum Zstd {
    /// What the zstd frame `frame` says it holds, in bytes: nil when it is not a frame or does
    /// not say.
    public static func contentSize(of frame: UnsafeRawBufferPointer) -> Int? {
        let size = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
        // ZSTD_CONTENTSIZE_UNKNOWN and ZSTD_CONTENTSIZE_ERROR are the two largest values.
        guard size < UInt64.max - 1, size <= UInt64(Int.max) else { return nil }
        return Int(size)
    }

    /// zstd's default level: about 300 MB/s for text on one core here, and most of the saving.
    public static let level: Int32 = 3

    /// A dictionary of at most `capacity` bytes trained on `samples` (zstd's fast COVER
    /// builder), or nil when they are too few or too alike for one.
    public static func trainDictionary(samples: [[UInt8]], capacity: Int) -> [UInt8]? {
        guard samples.count >= 8, capacity > 0 else { return nil }
        var joined: [UInt8] = []
        joined.reserveCapacity(samples.reduce(0) { $0 + $1.count })
        var sizes: [Int] = []
        for sample in samples where !sample.isEmpty {
            joined += sample
            sizes.append(sample.count)
        }
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let made = dictionary.withUnsafeMutableBytes { out in
            joined.withUnsafeBytes { input in
                ZDICT_trainFromBuffer(out.baseAddress, out.count, input.baseAddress, sizes, UInt32(sizes.count))
            }
        }
        guard ZDICT_isError(made) == 0, made > 0 else { return nil }
        dictionary.removeLast(dictionary.count - made)
        return dictionary
    }
}
