import CCompression

/// Whole-buffer compression for bytes made once and sent many times (static files), at each
/// format's best level: the cost is paid once per file change.
public enum Compression {
    /// `bytes` as a gzip stream (RFC 1952), or nil if zlib fails.
    public static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard mailroom_deflate_gzip(&stream, Z_BEST_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let result = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// The bytes a gzip stream holds, or nil if it is not one (or would exceed `limit`).
    public static func gunzip(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard mailroom_inflate_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 64 * 1_024)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (result, made) = piece.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    return (result, out.count - Int(stream.avail_out))
                }
                output += piece.prefix(made)
                guard output.count <= limit else { return nil }
                if result == Z_STREAM_END { return stream.avail_in == 0 ? output : nil }
                guard result == Z_OK, made > 0 || stream.avail_in > 0 else { return nil }
            }
        }
    }

    /// `bytes` in Brotli (RFC 7932) tuned for text, or nil if the encoder fails.
    public static func brotli(_ bytes: [UInt8]) -> [UInt8]? {
        var size = BrotliEncoderMaxCompressedSize(bytes.count)
        guard size > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: size)
        let done = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                BrotliEncoderCompress(BROTLI_MAX_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, input.count, input.baseAddress,
                                      &size, out.baseAddress)
            }
        }
        guard done == BROTLI_TRUE else { return nil }
        return Array(output.prefix(size))
    }

    /// The bytes a Brotli stream holds, or nil if it is not one (or would exceed `limit`).
    public static func unbrotli(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        guard let decoder = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        defer { BrotliDecoderDestroyInstance(decoder) }
        var output: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 64 * 1_024)
        return bytes.withUnsafeBufferPointer { input -> [UInt8]? in
            var availableIn = input.count
            var nextIn = input.baseAddress
            while true {
                let (result, made) = piece.withUnsafeMutableBufferPointer { out -> (BrotliDecoderResult, Int) in
                    var availableOut = out.count
                    var nextOut = out.baseAddress
                    let result = BrotliDecoderDecompressStream(decoder, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    return (result, out.count - availableOut)
                }
                output += piece.prefix(made)
                guard output.count <= limit else { return nil }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? output : nil
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return nil
                }
            }
        }
    }
}
