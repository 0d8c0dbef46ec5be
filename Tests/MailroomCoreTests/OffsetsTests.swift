import MailroomCore
import Testing

struct MoveExample: Sendable, CustomTestStringConvertible {
    let number: Int
    let source: [Int]
    let destination: Int
    let result: String

    var testDescription: String { "#\(number): \(source) → \(destination) gives \(result)" }
}

struct RemoveExample: Sendable, CustomTestStringConvertible {
    let offsets: [Int]
    let result: String

    var testDescription: String { "\(offsets) leaves [\(result)]" }
}

@Suite struct OffsetsTests {
    static let original = ["A", "B", "C", "D", "E"]

    /// The eight worked examples of DESIGN.md §2, "Ordering and the offsets API".
    static let designExamples: [MoveExample] = [
        MoveExample(number: 1, source: [0], destination: 2, result: "B A C D E"),
        MoveExample(number: 2, source: [0], destination: 1, result: "A B C D E"),
        MoveExample(number: 3, source: [4], destination: 0, result: "E A B C D"),
        MoveExample(number: 4, source: [1], destination: 4, result: "A C D B E"),
        MoveExample(number: 5, source: [0], destination: 5, result: "B C D E A"),
        MoveExample(number: 6, source: [1, 3], destination: 0, result: "B D A C E"),
        MoveExample(number: 7, source: [1, 3], destination: 2, result: "A B D C E"),
        MoveExample(number: 8, source: [1, 2, 3], destination: 3, result: "A B C D E"),
    ]

    @Test(arguments: designExamples)
    func moveMatchesTheDesignExamples(_ example: MoveExample) throws {
        var array = Self.original
        try array.move(fromOffsets: example.source, toOffset: example.destination)
        #expect(array == letters(example.result))
    }

    @Test(arguments: designExamples)
    func moveIgnoresTheOrderAndRepetitionOfSourceOffsets(_ example: MoveExample) throws {
        var array = Self.original
        try array.move(fromOffsets: example.source.reversed() + example.source, toOffset: example.destination)
        #expect(array == letters(example.result))
    }

    /// From the design: moving row i up one is {i} → i-1; down one is {i} → i+2.
    @Test(arguments: [
        MoveExample(number: 0, source: [2], destination: 1, result: "A C B D E"),
        MoveExample(number: 0, source: [1], destination: 0, result: "B A C D E"),
        MoveExample(number: 0, source: [2], destination: 4, result: "A B D C E"),
        MoveExample(number: 0, source: [3], destination: 5, result: "A B C E D"),
        MoveExample(number: 0, source: [0], destination: 2, result: "B A C D E"),
    ])
    func movingOneRowUpOrDownByOneSwapsItWithItsNeighbour(_ example: MoveExample) throws {
        var array = Self.original
        try array.move(fromOffsets: example.source, toOffset: example.destination)
        #expect(array == letters(example.result))
    }

    @Test func moveWithNoSourceOffsetsChangesNothing() throws {
        for destination in 0...Self.original.count {
            var array = Self.original
            try array.move(fromOffsets: [], toOffset: destination)
            #expect(array == Self.original)
        }
    }

    @Test func moveOnAnEmptyArrayAcceptsOnlyDestinationZero() throws {
        var empty: [String] = []
        try empty.move(fromOffsets: [], toOffset: 0)
        #expect(empty.isEmpty)
        let error = #expect(throws: OffsetError.self) {
            try empty.move(fromOffsets: [], toOffset: 1)
        }
        #expect(error?.offset == 1)
        #expect(error?.validRange == 0..<1)
    }

    static let removeExamples: [RemoveExample] = [
        RemoveExample(offsets: [0], result: "B C D E"),
        RemoveExample(offsets: [4], result: "A B C D"),
        RemoveExample(offsets: [2], result: "A B D E"),
        RemoveExample(offsets: [1, 3], result: "A C E"),
        RemoveExample(offsets: [3, 1], result: "A C E"),
        RemoveExample(offsets: [2, 2, 2], result: "A B D E"),
        RemoveExample(offsets: [0, 4], result: "B C D"),
        RemoveExample(offsets: [0, 1, 2, 3, 4], result: ""),
        RemoveExample(offsets: [], result: "A B C D E"),
    ]

    @Test(arguments: removeExamples)
    func removeUsesOriginalOffsetsAndKeepsTheRestInOrder(_ example: RemoveExample) throws {
        var array = Self.original
        try array.remove(atOffsets: example.offsets)
        #expect(array == letters(example.result))
    }

    @Test(arguments: [-1, 5, 6, Int.max, Int.min])
    func removeThrowsForAnOffsetOutsideTheArrayAndChangesNothing(bad: Int) {
        var array = Self.original
        let error = #expect(throws: OffsetError.self) {
            try array.remove(atOffsets: [1, bad])
        }
        #expect(error?.offset == bad)
        #expect(error?.validRange == 0..<5)
        #expect(array == Self.original)
    }

    @Test(arguments: [-1, 5, 6, Int.max, Int.min])
    func moveThrowsForASourceOffsetOutsideTheArrayAndChangesNothing(bad: Int) {
        var array = Self.original
        let error = #expect(throws: OffsetError.self) {
            try array.move(fromOffsets: [0, bad], toOffset: 2)
        }
        #expect(error?.offset == bad)
        #expect(error?.validRange == 0..<5)
        #expect(array == Self.original)
    }

    @Test(arguments: [-1, 6, 7, Int.max, Int.min])
    func moveThrowsForADestinationOutsideZeroThroughCountAndChangesNothing(bad: Int) {
        var array = Self.original
        let error = #expect(throws: OffsetError.self) {
            try array.move(fromOffsets: [1], toOffset: bad)
        }
        #expect(error?.offset == bad)
        #expect(error?.validRange == 0..<6)
        #expect(array == Self.original)
    }

    @Test func offsetErrorMessageNamesTheOffsetAndTheRange() {
        var array = Self.original
        let error = #expect(throws: OffsetError.self) {
            try array.move(fromOffsets: [7], toOffset: 0)
        }
        #expect(error?.message == "Offset 7 is out of range 0...4.")
    }

    /// An error's offset must never lie inside the range it says is valid, or the 400 page
    /// reads e.g. "Offset 0 is out of range 0...0.". An empty array has no valid element
    /// offset at all.
    @Test(arguments: [0, 1, -1])
    func removeFromAnEmptyArrayReportsAnOffsetOutsideItsValidRange(offset: Int) {
        var empty: [String] = []
        let error = #expect(throws: OffsetError.self) {
            try empty.remove(atOffsets: [offset])
        }
        if let error {
            #expect(!error.validRange.contains(error.offset), "message reads: \(error.message)")
        }
    }
}
