/// The fields of an `application/x-www-form-urlencoded` body or a query string, in order.
public struct FormData: Hashable, Sendable {
    public struct Field: Hashable, Sendable {
        public let name: String
        public let value: String
    }

    /// Why a form could not be decoded.
    public struct DecodingError: Error, Hashable, Sendable {
        public let message: String
    }

    public private(set) var fields: [Field]

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// Decodes `a=1&b=x+y&b=%C3%A9`: `+` is a space, escapes are UTF-8, names may repeat.
    public init(urlEncoded bytes: [UInt8]) throws(DecodingError) {
        self = try bytes.withUnsafeBufferPointer { bytes throws(DecodingError) in try FormData(urlEncoded: bytes) }
    }

    /// One pass over the bytes: a query string is decoded for every request that has one.
    init(urlEncoded bytes: UnsafeBufferPointer<UInt8>) throws(DecodingError) {
        var fields: [Field] = []
        var start = 0
        while start < bytes.count {
            var end = start
            var equals: Int?
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                let nameEnd = equals ?? end
                let valueStart = equals.map { $0 + 1 } ?? end
                guard let name = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[start..<nameEnd]), plusIsSpace: true),
                      let value = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), plusIsSpace: true)
                else {
                    throw DecodingError(message: "a field has a bad percent escape, a NUL byte or invalid UTF-8.")
                }
                fields.append(Field(name: name, value: value))
            }
            start = end + 1
        }
        self.fields = fields
    }

    public init(urlEncoded text: String) throws(DecodingError) {
        try self.init(urlEncoded: Array(text.utf8))
    }

    /// The first value for `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order.
    public func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    public var isEmpty: Bool { fields.isEmpty }

    /// The fields encoded for a URL's query or a form body.
    public var urlEncoded: String {
        fields.map { PercentDecoding.encode($0.name) + "=" + PercentDecoding.encode($0.value) }
            .joined(separator: "&")
    }
}
