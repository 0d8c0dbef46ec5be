import Testing

/// Static files come from `Public/` and nowhere else, however the path is spelled.
@Suite struct PathTraversalTests {
    @Test(arguments: [
        "/../Package.swift", "/%2e%2e/Package.swift", "/..%2fPackage.swift", "/%2E%2E%2FPackage.swift",
        "/.%2e/Package.swift", "/style.css/../../Package.swift", "/Public/../Package.swift",
        "/%2Fetc%2Fpasswd", "//etc/passwd", "/..%5cPackage.swift", "/.build/debug.yaml",
    ])
    func pathTraversalNeverReturnsAFileOutsidePublic(target: String) throws {
        let server = try TestServer(subjects: ["Alpha"])
        let response = try server.client().send("GET", target)
        #expect(response.status == 404 || response.status == 400, "\(target) answered \(response.status)")
        #expect(!response.text.contains("PackageDescription"))
        #expect(!response.text.contains("root:x:0:0"))
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
    }
}
