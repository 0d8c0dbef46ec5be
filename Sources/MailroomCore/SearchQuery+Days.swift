import CivilDate

extension SearchQuery {
    /// 00:00 UTC at the start of a day written `2026-11-30` or `2026/11/30`, in Unix seconds, or nil
    /// when `text` is not such a day of the Gregorian calendar.
    static func startOfDay(_ text: some StringProtocol) -> Int64? {
        guard let separator = text.first(where: { $0 == "-" || $0 == "/" }) else { return nil }
        let fields = text.split(separator: separator, omittingEmptySubsequences: false)
        guard fields.count == 3,
            fields[0].count == 4, let year = decimal(fields[0]), year >= 1,
            (1...2).contains(fields[1].count), let month = decimal(fields[1]),
            (1...2).contains(fields[2].count), let day = decimal(fields[2])
        else { return nil }
        let date = CivilDate(year: year, month: Int(month), day: Int(day))
        return date.isValid ? date.startInSeconds : nil
    }

    /// The value of ASCII digits only (`Int(_:)` would also take a sign).
    private static func decimal(_ digits: some StringProtocol) -> Int64? {
        var value: Int64 = 0
        for character in digits {
            guard let digit = character.asciiValue, (48...57).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - 48)
        }
        return value
    }
}
