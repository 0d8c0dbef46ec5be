import Compression
import Foundation
import HTTP
import Testing

/// Text files that shrink are also held compressed, Brotli and gzip, made once per change of
/// the file; a client gets the best variant it accepts, with its own ETag, and `Vary`.
final class StaticFilesCompressionTests {
    let base: URL
    let files: StaticFiles
    /// A stylesheet of the size of Mailroom's own, with the repetition CSS has.
    static let css = Array((0..<400).map { "nav a.row-\($0) { color: #336; padding: 0.5rem 1rem; }\n" }.joined().utf8)

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("mailroom-gz-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try Data(Self.css).write(to: base.appendingPathComponent("style.css"))
        try Data("tiny { }\n".utf8).write(to: base.appendingPathComponent("tiny.css"))
        // Bytes that do not repeat: compression would not shrink them.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<4_096).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        try Data(noise).write(to: base.appendingPathComponent("noise.txt"))
        try Data(noise).write(to: base.appendingPathComponent("logo.png"))
        files = StaticFiles(root: base.path)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    @Test func compressionRoundTrips() throws {
        for bytes in [Self.css, [], Array("x".utf8)] {
            #expect(Compression.gunzip(try #require(Compression.gzip(bytes))) == bytes)
            #expect(Compression.unbrotli(try #require(Compression.brotli(bytes))) == bytes)
        }
        #expect(Compression.gunzip(Array("not gzip".utf8)) == nil)
        #expect(Compression.unbrotli(Array(Self.css.prefix(40))) == nil)
        let cut = try #require(Compression.gzip(Self.css)).dropLast(12)
        #expect(Compression.gunzip(Array(cut)) == nil)
    }

    @Test func aBrowserThatAcceptsBrotliGetsBrotli() throws {
        let response = try #require(files.response(for: "/style.css", acceptEncoding: "gzip, deflate, br, zstd"))
        #expect(response.headers["Content-Encoding"] == "br")
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.body.count * 4 < Self.css.count)
        #expect(Compression.unbrotli(response.body) == Self.css)
    }

    @Test func gzipWhenBrotliIsNotAccepted() throws {
        for field in ["gzip", "gzip, br;q=0", "x-gzip", "*;q=0.5, br;q=0"] {
            let response = try #require(files.response(for: "/style.css", acceptEncoding: field))
            #expect(response.headers["Content-Encoding"] == "gzip", "\(field)")
            #expect(Compression.gunzip(response.body) == Self.css, "\(field)")
        }
    }

    @Test func thePlainFileOtherwise() throws {
        for field in [nil, "identity", "deflate", "gzip;q=0, br;q=0", "*;q=0"] as [String?] {
            let response = try #require(files.response(for: "/style.css", acceptEncoding: field))
            #expect(response.headers["Content-Encoding"] == nil, "\(field ?? "none")")
            #expect(response.body == Self.css, "\(field ?? "none")")
            #expect(response.headers["Vary"] == "Accept-Encoding")
        }
    }

    @Test func eachVariantHasItsOwnETagAnd304() throws {
        let plain = try #require(files.response(for: "/style.css")?.headers["ETag"])
        let gzip = try #require(files.response(for: "/style.css", acceptEncoding: "gzip")?.headers["ETag"])
        let brotli = try #require(files.response(for: "/style.css", acceptEncoding: "br")?.headers["ETag"])
        #expect(Set([plain, gzip, brotli]).count == 3)
        let again = try #require(files.response(for: "/style.css", ifNoneMatch: brotli, acceptEncoding: "br"))
        #expect(again.status == .notModified)
        #expect(again.body.isEmpty)
        #expect(again.headers["Content-Encoding"] == "br")
        // The ETag of another variant does not stand for this one.
        #expect(files.response(for: "/style.css", ifNoneMatch: gzip, acceptEncoding: "br")?.status == .ok)
    }

    @Test(arguments: ["/tiny.css", "/noise.txt", "/logo.png"])
    func smallIncompressibleAndBinaryFilesGoAsTheyAre(path: String) throws {
        let response = try #require(files.response(for: path, acceptEncoding: "br, gzip"))
        #expect(response.headers["Content-Encoding"] == nil)
        #expect(response.headers["Vary"] == nil)
    }

    @Test func aChangedFileGetsNewVariants() throws {
        let watching = StaticFiles(root: base.path, recheckSeconds: 0)
        let before = try #require(watching.response(for: "/style.css", acceptEncoding: "br"))
        let changed = Self.css + Array("footer { margin: 0 }\n".utf8)
        try Data(changed).write(to: base.appendingPathComponent("style.css"))
        let after = try #require(watching.response(for: "/style.css", acceptEncoding: "br"))
        #expect(after.headers["ETag"] != before.headers["ETag"])
        #expect(Compression.unbrotli(after.body) == changed)
    }
}
