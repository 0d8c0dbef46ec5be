import Synchronization

/// Wrong passwords and tokens, counted per client address over every door (sign-in, the API
/// token, SMTP AUTH): each wrong guess makes that address wait twice as long as the last before
/// it may guess again (2, 4, 8 … 60 seconds), so guessing runs at a few tries a minute.
///
/// A right guess does not clear the count: one secret an attacker knows (a printer's SMTP login,
/// or any login where every login is accepted) must not reset the wait on guessing another. The
/// count is forgotten once the address has made no wrong guess for `forgetAfter` seconds.
public final class Guesses: Sendable {
    private let lockouts = Mutex<[String: Lockout]>([:])
    /// Addresses remembered at most; past this, those whose wait is over are forgotten.
    private static let remembered = 10_000
    /// Seconds after its wait ends that an address's count is kept.
    public static let forgetAfter: Int64 = 15 * 60

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
            guard var lockout = lockouts[peer] else { return .mayTry }
            guard lockout.until > now else {
                if now > lockout.until + Self.forgetAfter { lockouts[peer] = nil }
                return .mayTry
            }
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
            var entry = lockouts[peer].flatMap { now > $0.until + Self.forgetAfter ? nil : $0 } ?? Lockout(count: 0, until: 0)
            entry.count += 1
            // Two seconds at first, not one: counted in whole seconds, a one-second wait could
            // be over a moment after it began.
            entry.until = now + min(Int64(2) << min(entry.count - 1, 5), 60)
            entry.refusedDuringWait = false
            lockouts[peer] = entry
            return entry.count
        }
    }

}

/// Secrets compared without stopping at the first difference and over the longer of the two,
/// so timing reveals no prefix of the secret.
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
