import Glibc
import Synchronization

/// The caps on one listener's connections, over every loop: how many at once, and how many from
/// one address. A refused connection is closed at once; it never gets a bufferevent.
final class Admission: Sendable {
    /// 0 means no cap.
    let maxTotal: Int
    /// 0 means no cap.
    let maxPerAddress: Int
    private let state = Mutex(State())

    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    enum Verdict: Equatable {
        case admitted
        /// Every slot is taken.
        case full
        /// This address holds its share already.
        case addressFull
    }

    init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
    }

    /// Counts `peer` in, unless a cap says no.
    func admit(_ peer: String) -> Verdict {
        state.withLock { state in
            if maxTotal > 0 && state.total >= maxTotal { return .full }
            let held = state.perAddress[peer, default: 0]
            if maxPerAddress > 0 && held >= maxPerAddress { return .addressFull }
            state.total += 1
            state.perAddress[peer] = held + 1
            return .admitted
        }
    }

    /// Counts an admitted connection out.
    func leave(_ peer: String) {
        state.withLock { state in
            state.total -= 1
            let held = state.perAddress[peer, default: 1] - 1
            state.perAddress[peer] = held > 0 ? held : nil
        }
    }

    var open: Int { state.withLock { $0.total } }
}

/// Says what was refused at most once a second, however fast refusals come: a flood must not
/// become a flood of log lines.
final class RefusalLog: Sendable {
    private let what: String
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var lastLine: Int64 = 0
        var full = 0
        var addressFull = 0
        var lastAddress = ""
        var outOfDescriptors = 0
    }

    /// `what` names the listener in the line ("HTTP", "SMTP").
    init(_ what: String, write: @escaping @Sendable (String) -> Void) {
        self.what = what
        self.write = write
    }

    func refused(_ verdict: Admission.Verdict, peer: String, limits: Admission) {
        note(limits: limits) { state in
            switch verdict {
            case .admitted: break
            case .full: state.full += 1
            case .addressFull:
                state.addressFull += 1
                state.lastAddress = peer
            }
        }
    }

    /// `accept` failed for want of descriptors (EMFILE, ENFILE) or memory.
    func outOfDescriptors(limits: Admission) {
        note(limits: limits) { $0.outOfDescriptors += 1 }
    }

    private func note(limits: Admission, _ change: (inout State) -> Void) {
        let line: String? = state.withLock { state in
            change(&state)
            return summary(&state, limits: limits)
        }
        if let line { write(line) }
    }

    /// Says what was refused since the last line, if anything was and a second has passed.
    func flush(limits: Admission) {
        if let line = state.withLock({ summary(&$0, limits: limits) }) { write(line) }
    }

    private func summary(_ state: inout State, limits: Admission) -> String? {
        let now = Int64(time(nil))
        guard now > state.lastLine else { return nil }
        var parts: [String] = []
        if state.full > 0 { parts.append("\(state.full) over the cap of \(limits.maxTotal) connections") }
        if state.addressFull > 0 {
            parts.append("\(state.addressFull) over the cap of \(limits.maxPerAddress) from one address "
                + "(the last from \(state.lastAddress))")
        }
        if state.outOfDescriptors > 0 {
            parts.append("\(state.outOfDescriptors) accept(2) calls out of file descriptors, accepting paused")
        }
        guard !parts.isEmpty else { return nil }
        state = State(lastLine: now)
        return "mailroom: \(what) refused connections: " + parts.joined(separator: "; ")
    }
}

/// The process's limit on open files, raised to what the system allows.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one and says what it is now.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_, &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// Descriptors kept back from connections: the database and its journal, the loops'
    /// own (with up to 16 answer files each, `AnswerFile`, which fall back to memory when no
    /// descriptor is left), worker threads, files a request opens, and imports.
    public static let reserved = 128

    /// The HTTP connections that fit beside `smtpConnections` SMTP sessions under `limit`; under
    /// a low limit, at least half of what is not reserved (accepting pauses if SMTP takes the rest).
    public static func defaultMaxConnections(limit: Int, smtpConnections: Int) -> Int {
        max(limit - reserved - smtpConnections, (limit - reserved) / 2, 16)
    }
}

private let RLIMIT_NOFILE_ = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
