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
        case .fragment(let nodes):
            for node in nodes { node.render(into: &buffer) }
        }
    }

    /// The whole markup as bytes, in one buffer of about the right size from the start: a page
    /// of thousands of cached rows is then copied once, not again at every doubling.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(estimatedSize + 1_024)
        render(into: &buffer)
        return buffer
    }

    /// The size of the markup before escaping, which only makes text longer.
    var estimatedSize: Int {
        switch storage {
        case .element(let name, let attributes, let children):
            var size = 2 * name.utf8CodeUnitCount + 5 + Self.estimatedSize(of: attributes)
            for child in children { size += child.estimatedSize }
            return size
        case .void(let name, let attributes):
            return name.utf8CodeUnitCount + 2 + Self.estimatedSize(of: attributes)
        case .text(let text):
            return text.utf8.count
        case .trusted(let markup):
            return markup.utf8CodeUnitCount
        case .rendered(let bytes):
            return bytes.count
        case .fragment(let nodes):
            var size = 0
            for node in nodes { size += node.estimatedSize }
            return size
        }
    }

    private static func estimatedSize(of attributes: [Attribute]) -> Int {
        var size = 0
        for attribute in attributes {
            switch attribute.value {
            case .omitted: continue
            case .present: size += 1 + attribute.prefix.utf8CodeUnitCount + attribute.name.utf8CodeUnitCount
            case .text(let value):
                size += 4 + attribute.prefix.utf8CodeUnitCount + attribute.name.utf8CodeUnitCount + value.utf8.count
            }
        }
        return size
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
