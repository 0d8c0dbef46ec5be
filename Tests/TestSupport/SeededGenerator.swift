/// SplitMix64: a tiny generator whose sequence depends on the seed alone, on every platform and
/// Swift version, so a failing random run can be repeated (the standard library's
/// `random(in:using:)` makes no such promise, so draw with `below(_:)` instead).
///
/// One copy for every test target (this is the TestSupport target).
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`; `bound` must be positive.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A random subset of `items`, keeping their order.
    public mutating func subset<T>(of items: [T]) -> [T] { items.filter { _ in chance(1, in: 2) } }

    /// A random non-empty subset when `items` is non-empty.
    public mutating func nonEmptySubset<T>(of items: [T]) -> [T] {
        guard !items.isEmpty else { return [] }
        let chosen = subset(of: items)
        return chosen.isEmpty ? [pick(items)] : chosen
    }
}
