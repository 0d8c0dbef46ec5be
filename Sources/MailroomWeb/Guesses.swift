import Synchronization

/// Wrong passwords and tokens, counted per client address over every door (sign-in, the API
/// token, SMTP AUTH): each wrong guess makes that address wait twice as long as the last before
/// it may guess again (1, 2, 4 … up to 60 seconds), so guessing runs at a few tries a minute.
/// A right guess clears the count.
public final class Guesses: Sendable {
    private let lockouts = Mutex<[String: Lockout]>([:])
    /// Addresses remembered at most; past this, those whose wait is over are forgotten.
    private static let remembered = 10_000

    private struct Lockout {
        var count: Int
        var until: Int64
        /// Whether a guess during this wait was refused already (and so logged).
        var refusedDuringWait = false
    }

    public enum Verdict: Equatable, Sendable {
        case mayTry
        /// This address must wait so many seconds more before its guess is even checked;
        /// `first` is true for the first guess refused during this wait, the one worth a log
        /// line (a client that keeps trying must not flood the log).
        case wait(seconds: Int64, first: Bool)
    }

    public init() {}

    /// Whether `peer` may have a guess checked now.
    public func check(_ peer: String, now: Int64) -> Verdict {
        lockouts.withLock { lockouts in
            guard var lockout = lockouts[peer], lockout.until > now else { return .mayTry }
            let first = !lockout.refusedDuringWait
            lockout.refusedDuringWait = true
            lockouts[peer] = lockout
            return .wait(seconds: lockout.until - now, first: first)
        }
    }

    /// Counts a wrong guess from `peer` and says how many there have been in a row.
    @discardableResult
    public func failed(_ peer: String, now: Int64) -> Int {
        lockouts.withLock { lockouts in
            if lockouts.count >= Self.remembered { lockouts = lockouts.filter { $0.value.until > now } }
            var entry = lockouts[peer] ?? Lockout(count: 0, until: 0)
            entry.count += 1
            entry.until = now + min(Int64(1) << min(entry.count - 1, 6), 60)
            entry.refusedDuringWait = false
            lockouts[peer] = entry
            return entry.count
        }
    }

    public func succeeded(_ peer: String) {
        _ = lockouts.withLock { $0.removeValue(forKey: peer) }
    }
}

/// Secrets compared without stopping at the first difference, so timing reveals neither a
/// prefix nor, beyond whether they differ, the length.
public enum Secret {
    public static func equal(_ given: [UInt8], _ wanted: [UInt8]) -> Bool {
        var difference = given.count ^ wanted.count
        for index in 0..<max(given.count, wanted.count) {
            let left = index < given.count ? given[index] : 0
            let right = index < wanted.count ? wanted[index] : 0
            difference |= Int(left ^ right)
        }
        return difference == 0
    }

    public static func equal(_ given: String, _ wanted: String) -> Bool {
        equal(Array(given.utf8), Array(wanted.utf8))
    }
}
