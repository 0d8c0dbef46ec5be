/// Where the package being tested lives, found from this source file's own path.
enum PackageLocation {
    /// The folder that holds `Package.swift`.
    static let root: String = {
        let file = "\(#filePath)"
        guard let range = file.firstRange(of: "/Tests/EndToEndTests/") else {
            preconditionFailure("EndToEndTests moved: cannot find the package root from \(file)")
        }
        return String(file[..<range.lowerBound])
    }()

    /// The folder of static files the app serves.
    static var publicFolder: String { root + "/Public" }
}
