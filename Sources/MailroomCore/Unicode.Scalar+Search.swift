/// Characters as a search reads them: scripts written without spaces, word ends, quotes, letters.
extension Unicode.Scalar {
    /// A character of a script written without spaces between words, which a tokenizer that
    /// splits at spaces and punctuation keeps in one token with its whole run: Thai, Lao, Myanmar, Khmer, Hangul
    /// (Korean particles join their word), kana, CJK ideographs and their punctuation. All are at
    /// U+0E00 or above, so their UTF-8 starts with a byte of 0xE0 or more.
    public var isWrittenWithoutSpaces: Bool {
        switch value {
        case 0x0E00...0x0EFF,  // Thai, Lao
            0x1000...0x109F,  // Myanmar
            0x1100...0x11FF,  // Hangul Jamo
            0x1780...0x17FF, 0x19E0...0x19FF,  // Khmer
            0x2E80...0x2FDF,  // CJK radicals
            0x3000...0x9FFF,  // CJK punctuation, kana, Bopomofo, Hangul compatibility, ideographs
            0xA960...0xA97F, 0xAC00...0xD7FF,  // Hangul
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFF00...0xFFEF,  // full-width and half-width forms
            0x20000...0x3FFFF:  // CJK extensions
            true
        default:
            false
        }
    }
}

extension Unicode.Scalar {
    /// Ends a word: white space, and control characters, which no term may hold (a NUL would end
    /// a string early).
    var separatesWords: Bool { properties.isWhitespace || properties.generalCategory == .control }

    /// Straight quotes, and the curly ones phones type in their place.
    var isQuote: Bool { self == "\u{22}" || self == "\u{201C}" || self == "\u{201D}" }

    /// A letter, a digit or a private-use character: what the word index keeps of a text (see the
    /// store's tokenizer). Everything else separates words, or (accents) is removed from them.
    var isSearchable: Bool {
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            true
        default:
            false
        }
    }
}

extension Unicode.GeneralCategory {
    var isMark: Bool { self == .nonspacingMark || self == .spacingMark || self == .enclosingMark }
}

extension Substring {
    /// The text from the first to the last searchable scalar, and whether a `*` followed the last
    /// one (`scan*`, `scan*)` and `scan.*` all ask for a prefix).
    var searchableCore: (text: Substring, endsWithStar: Bool) {
        guard let first = unicodeScalars.firstIndex(where: \.isSearchable),
            let last = unicodeScalars.lastIndex(where: \.isSearchable)
        else { return ("", false) }
        var end = unicodeScalars.index(after: last)
        // The marks after a last letter of such a script are part of it (a Thai vowel or tone
        // mark): the substring index compares characters as they are.
        if unicodeScalars[first...last].contains(where: \.isWrittenWithoutSpaces) {
            while end < unicodeScalars.endIndex, unicodeScalars[end].properties.generalCategory.isMark {
                end = unicodeScalars.index(after: end)
            }
        }
        return (Substring(unicodeScalars[first..<end]), unicodeScalars[end...].contains("*"))
    }
}
