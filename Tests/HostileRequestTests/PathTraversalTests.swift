import Testing

/// No spelling of a path leaves `Public/`: each is a 400 or 404 page, never the file.
@Suite struct PathTraversalTests {
    static let targets: [String] = [
        "/../Package.swift", "/%2e%2e/Package.swift", "/%2E%2E%2FPackage.swift", "/..%2fPackage.swift",
        "/.%2e/Package.swift", "/..\\Package.swift", "/%5c..%5cPackage.swift", "//etc/passwd", "/style.css/..",
        "/%252e%252e/Package.swift", "/%252e%252e%252fPackage.swift",
        // Beyond the brief: deeper climbs, mixed separators and an absolute path.
        "/../../../../../../etc/passwd", "/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/.%2e\\Package.swift",
        "/style.css/../../Package.swift", "/%2Fetc%2Fpasswd", "/./../Package.swift", "/Public/../Package.swift",
    ]

    @Test(arguments: targets)
    func aTraversalNeverReturnsAFileOutsidePublic(_ target: String) throws {
        let server = try HostileServer()
        let exchange = try server.exchange(RequestBytes.get(target))
        Expect.answer(exchange, [400, 404], for: "GET \(target)")
        for response in exchange.responses {
            #expect(!response.text.contains("PackageDescription"), "GET \(target) returned Package.swift")
            #expect(!response.text.contains("root:x:0:0"), "GET \(target) returned /etc/passwd")
        }
        server.expectStillServesInbox(after: "GET \(target)")
    }

    @Test func aFileInsidePublicIsServed() throws {
        // Without this, the 404s above could mean the server serves no files at all.
        let server = try HostileServer()
        let exchange = try server.exchange(RequestBytes.get("/style.css"))
        #expect(exchange.responses.first?.status == 200, "\(exchange.summary)")
        #expect(exchange.responses.first?.header("Content-Type")?.hasPrefix("text/css") == true)
    }
}
