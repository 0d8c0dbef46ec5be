import Foundation
import HTTP
import Testing

/// Static files come from memory with an ETag, answer a matching If-None-Match with 304, and
/// are read again when they change.
@Suite struct StaticFilesCacheTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mailroom-static-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("body { color: red }".utf8).write(to: folder.appendingPathComponent("style.css"))
    }

    @Test func aFileCarriesAnETagAndLastModified() throws {
        let files = StaticFiles(root: folder.path)
        let response = try #require(files.response(for: "/style.css"))
        #expect(response.status == .ok)
        #expect(response.headers["ETag"]?.hasPrefix("\"") == true)
        #expect(response.headers["Last-Modified"]?.hasSuffix(" GMT") == true)
        #expect(String(decoding: response.body, as: UTF8.self) == "body { color: red }")
    }

    @Test func aMatchingIfNoneMatchIsA304WithoutABody() throws {
        let files = StaticFiles(root: folder.path)
        let etag = try #require(files.response(for: "/style.css")?.headers["ETag"])
        let again = try #require(files.response(for: "/style.css", ifNoneMatch: etag))
        #expect(again.status == .notModified)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == etag)
        let other = try #require(files.response(for: "/style.css", ifNoneMatch: "\"something-else\""))
        #expect(other.status == .ok)
    }

    @Test func aChangedFileIsReadAgainWithANewETag() throws {
        // Asked of `stat` on every request here; the server's default asks once a second.
        let files = StaticFiles(root: folder.path, recheckSeconds: 0)
        let first = try #require(files.response(for: "/style.css")?.headers["ETag"])
        try Data("body { color: blue; margin: 0 }".utf8).write(to: folder.appendingPathComponent("style.css"))
        let changed = try #require(files.response(for: "/style.css"))
        #expect(changed.headers["ETag"] != first)
        #expect(String(decoding: changed.body, as: UTF8.self) == "body { color: blue; margin: 0 }")
        #expect(files.response(for: "/style.css", ifNoneMatch: first)?.status == .ok)
    }

    /// A thread remembers the files it served (without the shared lock), for each folder apart:
    /// two folders' files of one name never stand in for each other.
    @Test func eachFolderIsRememberedApart() throws {
        let otherFolder = folder.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: otherFolder, withIntermediateDirectories: true)
        try Data("body { color: green }".utf8).write(to: otherFolder.appendingPathComponent("style.css"))
        let files = StaticFiles(root: folder.path, recheckSeconds: 60)
        let others = StaticFiles(root: otherFolder.path, recheckSeconds: 60)
        for _ in 0..<3 {
            #expect(files.response(for: "/style.css").map { String(decoding: $0.body, as: UTF8.self) } == "body { color: red }")
            #expect(files.response(for: "/style.css").map { String(decoding: $0.body, as: UTF8.self) } == "body { color: red }")
            #expect(others.response(for: "/style.css").map { String(decoding: $0.body, as: UTF8.self) } == "body { color: green }")
        }
    }
}

/// A static file's answer may be sent again for the same request only until its copy in memory
/// is due to be checked against the disk.
extension StaticFilesCacheTests {
    @Test func anAnswerRepeatsWhileTheCopyInMemoryIsCurrent() throws {
        let files = StaticFiles(root: folder.path, recheckSeconds: 3_600)
        let answer = try #require(files.response(for: "/style.css"))
        #expect(answer.repeatable?.isCurrent == true)
        let notModified = try #require(files.response(for: "/style.css", ifNoneMatch: answer.headers["ETag"]))
        #expect(notModified.status == .notModified)
        #expect(notModified.repeatable?.isCurrent == true)
    }

    @Test func anAnswerDueForACheckIsNotRepeated() throws {
        let files = StaticFiles(root: folder.path, recheckSeconds: 0)
        let answer = try #require(files.response(for: "/style.css"))
        #expect(answer.repeatable?.isCurrent == false)
    }

    @Test func anyChangeToAMarkedAnswerDropsTheMark() throws {
        let files = StaticFiles(root: folder.path, recheckSeconds: 3_600)
        var answer = try #require(files.response(for: "/style.css"))
        answer.headers.add("X-Extra", "1")
        #expect(answer.repeatable == nil)
        #expect(!answer.isPrepared)
        // Only a prepared answer can be marked.
        let plain = Response(text: "hello").repeating(while: Repeatable { true })
        #expect(plain.repeatable == nil)
    }
}
