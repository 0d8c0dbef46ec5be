extension Node {
    /// Appends the node's markup to `buffer`.
    public func render(into buffer: inout [UInt8]) {
        switch storage {
        case .element(let name, let attributes, let children):
            writeOpeningTag(name, attributes, into: &buffer)
            for child in children { child.render(into: &buffer) }
            buffer.append(contentsOf: [0x3C, 0x2F]) // "</"
            buffer.append(name)
            buffer.append(0x3E)
        case .void(let name, let attributes):
            writeOpeningTag(name, attributes, into: &buffer)
        case .text(let text):
            Escaping.appendText(text, to: &buffer)
        case .trusted(let markup):
            buffer.append(markup)
        case .rendered(let bytes):
            buffer.append(contentsOf: bytes)
        case .source(let source):
            RenderedWriter.write(source, into: &buffer)
        case .fragment(let nodes):
            for node in nodes { node.render(into: &buffer) }
        }
    }

    /// The whole markup as bytes.
    public var bytes: [UInt8] { bytes(reservingCapacity: 16_384) }

    /// The whole markup as bytes, in a buffer made `capacity` bytes large to begin with: a page
    /// of thousands of cached rows, sized up front, is then copied once rather than again at
    /// every doubling.
    public func bytes(reservingCapacity capacity: Int) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(capacity)
        render(into: &buffer)
        return buffer
    }

    /// The whole markup as a string, for tests and logs.
    public var html: String { String(decoding: bytes, as: UTF8.self) }

    private func writeOpeningTag(_ name: StaticString, _ attributes: [Attribute], into buffer: inout [UInt8]) {
        buffer.append(0x3C) // "<"
        buffer.append(name)
        for attribute in attributes {
            switch attribute.value {
            case .omitted:
                continue
            case .present:
                buffer.append(0x20)
                buffer.append(attribute.prefix)
                buffer.append(attribute.name)
            case .text(let value):
                buffer.append(0x20)
                buffer.append(attribute.prefix)
                buffer.append(attribute.name)
                buffer.append(contentsOf: [0x3D, 0x22]) // ="
                Escaping.appendAttributeValue(value, to: &buffer)
                buffer.append(0x22)
            }
        }
        buffer.append(0x3E) // ">"
    }
}

extension [UInt8] {
    mutating func append(_ string: StaticString) {
        string.withUTF8Buffer { append(contentsOf: $0) }
    }
}
