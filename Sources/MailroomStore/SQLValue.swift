/// A value bound to a statement's `?` parameter: the only kinds Mailroom stores.
///
/// A closed set, so binding can never meet a type it does not know how to write.
enum SQLValue: Hashable, Sendable {
    case integer(Int64)
    case text(String)
    /// Bytes as they are; bound by reference, so the array must outlive the statement's step.
    case blob([UInt8])
    case null

    static func integer(_ value: Int) -> SQLValue { .integer(Int64(value)) }

    static func boolean(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }

    static func optional(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
}
