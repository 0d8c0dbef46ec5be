/// Why a piece of the test harness could not do what a test asked, in words that explain the failure.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
