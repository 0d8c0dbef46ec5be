private import CGMime

/// Turns a part's encoded content, read from its raw message a piece at a time, into the part's
/// bytes: the same filter GMime applies when a whole parse writes the part out, so a download
/// made from pieces is byte for byte what the full parse gives.
///
/// A decoder keeps state between pieces (a base64 quantum or a quoted-printable escape cut in
/// two) and belongs to one download; use it from one thread at a time.
public final class PartDecoder {
    /// Nil for an encoding with nothing to undo.
    private let filter: UnsafeMutablePointer<GMimeFilter>?

    public init(_ encoding: TransferEncoding) {
        switch encoding {
        case .base64 where MailParser.ready: filter = mailroom_decoder(GMIME_CONTENT_ENCODING_BASE64)
        case .quotedPrintable where MailParser.ready: filter = mailroom_decoder(GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE)
        case .uuencode where MailParser.ready: filter = mailroom_decoder(GMIME_CONTENT_ENCODING_UUENCODE)
        default: filter = nil
        }
    }

    deinit { mailroom_unref(filter) }

    /// The bytes that `piece`, the next run of the encoded content, decodes to (possibly none
    /// yet: the filter holds an unfinished quantum until the next piece).
    public func decode(_ piece: [UInt8]) -> [UInt8] {
        guard let filter else { return piece }
        return run(piece) { filter, input, count, output, outputCount, prespace in
            g_mime_filter_filter(filter, input, count, 0, output, outputCount, prespace)
        }
    }

    /// What is left once the last piece was given: what the filter held back.
    public func finish() -> [UInt8] {
        guard let filter else { return [] }
        return run([]) { filter, input, count, output, outputCount, prespace in
            g_mime_filter_complete(filter, input, count, 0, output, outputCount, prespace)
        }
    }

    private func run(
        _ piece: [UInt8],
        _ step: (UnsafeMutablePointer<GMimeFilter>, UnsafeMutablePointer<CChar>?, Int,
                 UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<Int>) -> Void
    ) -> [UInt8] {
        guard let filter else { return piece }
        // The filter's input is not const in C: it is given a copy it may write to (never
        // empty, so its address is never null).
        var input = piece.isEmpty ? [0] : piece
        let count = piece.count
        var output: UnsafeMutablePointer<CChar>?
        var outputCount = 0
        var prespace = 0
        input.withUnsafeMutableBytes { input in
            step(filter, input.baseAddress?.assumingMemoryBound(to: CChar.self), count, &output, &outputCount, &prespace)
        }
        // The output lies in the filter's own buffer, valid until its next call.
        guard let output, outputCount > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: output, count: outputCount))
    }
}
