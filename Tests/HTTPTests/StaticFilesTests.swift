import Foundation
import HTTP
import Testing

/// Serving a folder, and refusing everything outside it.
///
/// Each test gets its own folder:
/// ```
/// <tmp>/secret.txt          outside the public folder
/// <tmp>/public/style.css, app.js, logo.png, data.xyz, README, empty.txt, .hidden
/// <tmp>/public/sub/inner.txt
/// ```
final class StaticFilesTests {
    let base: URL
    let root: String
    let files: StaticFiles

    init() throws {
        base = FileManager.default.temporaryDirectory
            .appendingPathComponent("mailroom-static-\(UUID().uuidString)", isDirectory: true)
        let publicFolder = base.appendingPathComponent("public", isDirectory: true)
        try FileManager.default.createDirectory(
            at: publicFolder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        func write(_ relative: String, _ text: String, in folder: URL) throws {
            try Data(text.utf8).write(to: folder.appendingPathComponent(relative))
        }
        try write("secret.txt", "outside", in: base)
        try write("style.css", "body { color: red }\n", in: publicFolder)
        try write("app.js", "console.log(1)", in: publicFolder)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: publicFolder.appendingPathComponent("logo.png"))
        try write("data.xyz", "?", in: publicFolder)
        try write("README", "readme", in: publicFolder)
        try write("empty.txt", "", in: publicFolder)
        try write(".hidden", "hidden", in: publicFolder)
        try write("sub/inner.txt", "inner", in: publicFolder)
        root = publicFolder.path
        files = StaticFiles(root: root)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    @Test func servesAFileWithItsBytesAndContentType() throws {
        let response = try #require(files.response(for: "/style.css"))
        #expect(response.status == .ok)
        #expect(response.body == Array("body { color: red }\n".utf8))
        #expect(response.headers["Content-Type"] == "text/css; charset=utf-8")
    }

    @Test func servesAFileInASubfolder() throws {
        let response = try #require(files.response(for: "/sub/inner.txt"))
        #expect(response.body == Array("inner".utf8))
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func servesAnEmptyFile() throws {
        let response = try #require(files.response(for: "/empty.txt"))
        #expect(response.body.isEmpty)
    }

    @Test func aRootWithATrailingSlashServesTheSameFiles() throws {
        let response = try #require(StaticFiles(root: root + "/").response(for: "/style.css"))
        #expect(response.body == Array("body { color: red }\n".utf8))
    }

    @Test(arguments: [
        ("/style.css", "text/css; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/logo.png", "image/png"),
        ("/data.xyz", "application/octet-stream"),
        ("/README", "application/octet-stream"),
    ])
    func namesTheContentTypeByExtension(path: String, contentType: String) throws {
        let response = try #require(files.response(for: path))
        #expect(response.headers["Content-Type"] == contentType)
    }

    @Test func theExtensionIsMatchedWithoutCase() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/LOUD.CSS"))
        let response = try #require(files.response(for: "/LOUD.CSS"))
        #expect(response.headers["Content-Type"] == "text/css; charset=utf-8")
    }

    @Test(arguments: [
        "/",                         // the folder itself
        "/sub",                      // a folder
        "/sub/",                     // a folder, with the empty segment after it
        "/missing.css",
        "/sub/missing.txt",
        "/.hidden",
        "/sub/../style.css",         // `..` even when it would stay inside
        "/../secret.txt",
        "/../public/style.css",
        "/sub/../../secret.txt",
        "/../../../../etc/passwd",
        "/./style.css",
        "//style.css",
        "/sub//inner.txt",
        "/style.css/",
        "/sub\\inner.txt",
        "/..\\secret.txt",
        "/style.css\0",
        "style.css",                 // not a request path at all
        "",
    ])
    func servesNothingOutsideItsPlainFiles(path: String) {
        #expect(files.response(for: path) == nil)
    }

    @Test(arguments: ["/%2e%2e/secret.txt", "/sub/%2E%2E/%2E%2E/secret.txt", "/..%2Fsecret.txt", "/%2F..%2Fsecret.txt"])
    func anEncodedEscapeIsRefusedOnceDecoded(target: String) throws {
        let request = try Request(method: .get, target: target)
        #expect(files.response(for: request.path) == nil)
    }

    @Test func anAbsolutePathIsNotReadFromTheFileSystemRoot() {
        #expect(files.response(for: "//etc/passwd") == nil)
        #expect(files.response(for: "/etc/passwd") == nil)
    }
}
