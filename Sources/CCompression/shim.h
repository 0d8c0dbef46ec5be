#ifndef MAILROOM_CCOMPRESSION_SHIM_H
#define MAILROOM_CCOMPRESSION_SHIM_H

// zlib (gzip) and Brotli from Debian, for the variants of static files that browsers accept
// compressed, and zstd with its dictionary builder, for raw mail on disk; only the Compression
// module imports them.
#include <zlib.h>
#include <brotli/encode.h>
#include <brotli/decode.h>
#include <zstd.h>
#include <zdict.h>

// deflateInit2 and inflateInit2 are macros, which Swift cannot call: the gzip wrapper (window
// bits 15, plus 16 for gzip rather than zlib framing).
static inline int mailroom_deflate_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}

static inline int mailroom_inflate_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

#endif
