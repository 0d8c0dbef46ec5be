import MailroomCore
import Testing

/// Exhaustive checks of the offsets API against small, independent reference implementations:
/// every array length 0...6, every subset of offsets and every destination 0...count.
@Suite struct OffsetsPropertyTests {
    static let lengths = Array(0...6)

    /// Every subset of `0..<count`, as ascending offsets.
    static func subsets(of count: Int) -> [[Int]] {
        (0..<(1 << count)).map { mask in (0..<count).filter { mask & (1 << $0) != 0 } }
    }

    /// Walks the original array; just before the element that was at `destination` (or at the
    /// end when `destination == count`) it inserts the moved elements in their original order,
    /// and it skips the moved elements where they were.
    static func referenceMove<T>(_ array: [T], moving moved: Set<Int>, to destination: Int) -> [T] {
        let movedElements = array.indices.filter { moved.contains($0) }.map { array[$0] }
        var result: [T] = []
        for offset in array.indices {
            if offset == destination { result += movedElements }
            if !moved.contains(offset) { result.append(array[offset]) }
        }
        if destination == array.count { result += movedElements }
        return result
    }

    static func referenceRemove<T>(_ array: [T], removing removed: Set<Int>) -> [T] {
        array.indices.filter { !removed.contains($0) }.map { array[$0] }
    }

    @Test func theReferenceMoveAgreesWithTheDesignExamples() {
        for example in OffsetsTests.designExamples {
            let result = Self.referenceMove(
                OffsetsTests.original, moving: Set(example.source), to: example.destination)
            #expect(result == letters(example.result), "\(example.testDescription)")
        }
    }

    @Test(arguments: lengths)
    func moveEqualsTheReferenceForEverySubsetAndDestination(count: Int) throws {
        let original = Array(0..<count).map { "e\($0)" }
        for subset in Self.subsets(of: count) {
            for destination in 0...count {
                let expected = Self.referenceMove(original, moving: Set(subset), to: destination)

                var ascending = original
                try ascending.move(fromOffsets: subset, toOffset: destination)
                #expect(ascending == expected, "move \(subset) to \(destination) in \(count)")

                // The offsets are a set: their order in the sequence must not matter.
                var descending = original
                try descending.move(fromOffsets: subset.reversed(), toOffset: destination)
                #expect(descending == expected, "move \(subset.reversed()) to \(destination) in \(count)")
            }
        }
    }

    @Test(arguments: lengths)
    func removeEqualsTheReferenceForEverySubset(count: Int) throws {
        let original = Array(0..<count).map { "e\($0)" }
        for subset in Self.subsets(of: count) {
            var array = original
            try array.remove(atOffsets: subset.reversed())
            #expect(array == Self.referenceRemove(original, removing: Set(subset)), "remove \(subset) in \(count)")
        }
    }

    @Test(arguments: lengths)
    func anOutOfRangeSourceOffsetThrowsAndLeavesTheArrayUnchanged(count: Int) {
        let original = Array(0..<count).map { "e\($0)" }
        for subset in Self.subsets(of: count) {
            for bad in [-1, count, count + 1] {
                for destination in 0...count {
                    var array = original
                    let error = #expect(throws: OffsetError.self) {
                        try array.move(fromOffsets: subset + [bad], toOffset: destination)
                    }
                    #expect(error?.offset == bad)
                    #expect(array == original, "move \(subset + [bad]) to \(destination) in \(count)")
                }
            }
        }
    }

    @Test(arguments: lengths)
    func anOutOfRangeDestinationThrowsAndLeavesTheArrayUnchanged(count: Int) {
        let original = Array(0..<count).map { "e\($0)" }
        for subset in Self.subsets(of: count) {
            for bad in [-2, -1, count + 1, count + 2] {
                var array = original
                let error = #expect(throws: OffsetError.self) {
                    try array.move(fromOffsets: subset, toOffset: bad)
                }
                #expect(error?.offset == bad)
                #expect(error?.validRange == 0..<(count + 1))
                #expect(array == original, "move \(subset) to \(bad) in \(count)")
            }
        }
    }

    @Test(arguments: lengths)
    func anOutOfRangeRemovalOffsetThrowsAndLeavesTheArrayUnchanged(count: Int) {
        let original = Array(0..<count).map { "e\($0)" }
        for subset in Self.subsets(of: count) {
            for bad in [-1, count, count + 1] {
                var array = original
                let error = #expect(throws: OffsetError.self) {
                    try array.remove(atOffsets: [bad] + subset)
                }
                #expect(error?.offset == bad)
                #expect(array == original, "remove \([bad] + subset) in \(count)")
            }
        }
    }
}
