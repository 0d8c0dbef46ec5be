import Dispatch
import Glibc
import MailroomStore

/// Compresses raw mail in the background (Store+Packing.swift): mail kept as it came by an
/// older Mailroom, and mail stored before its mailbox had a dictionary. Only in a quarter second
/// with no other commit (the packer's own make no revision) does it work, and then for at most
/// a tenth of a second, stopping as soon as anything else commits, so it takes under half of one
/// core and never competes with intake; once nothing is left it rests. Every 10 s (when quiet)
/// it looks for mailboxes that have grown enough mail for a dictionary. With no raw mail left to
/// compress, it merges the search indexes' segments in the same quiet moments
/// (Store+IndexMerging.swift).
enum Packer {
    static func start(_ store: Store) -> DispatchSourceTimer {
        let queue = DispatchQueue(label: "mailroom.packer", qos: .utility)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let state = State()
        if let left = try? store.rawMailLeftToPack(), left > 0 {
            Console.out("mailroom: compressing raw mail kept uncompressed (up to \(left) messages), in the background")
            state.announced = true
        }
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { state.tick(store) }
        timer.resume()
        return timer
    }

    /// What the ticks remember; touched only on the packer's queue.
    private final class State: @unchecked Sendable {
        var announced = false
        var restingUntil: UInt64 = 0
        var indexesRestingUntil: UInt64 = 0
        var nextTraining: UInt64 = 0
        var lastRevision: Int64 = -1

        func tick(_ store: Store) {
            let now = DispatchTime.now().uptimeNanoseconds
            // Background work gives way: nothing while anything else was committed since the
            // last tick (mail arriving, people working), so it never slows intake down.
            let revision = store.revision
            guard revision == lastRevision else {
                lastRevision = revision
                return
            }
            do throws(StoreError) {
                if now >= nextTraining {
                    nextTraining = now + 10_000_000_000
                    if try store.trainRawDictionaries(at: Int64(time(nil))) > 0 { restingUntil = 0 }
                }
                let deadline = now + 100_000_000
                // Until the tenth of a second is up, or anything else commits meanwhile.
                func keepGoing() -> Bool { DispatchTime.now().uptimeNanoseconds < deadline && store.revision == revision }
                while now >= restingUntil, keepGoing() {
                    guard try store.packRaws() > 0 else {
                        restingUntil = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
                        if announced {
                            Console.out("mailroom: all raw mail is compressed")
                            announced = false
                        }
                        break
                    }
                }
                // The indexes only once no raw mail is left to compress: both want the writer,
                // and raw mail is the larger win.
                guard restingUntil > DispatchTime.now().uptimeNanoseconds, now >= indexesRestingUntil else { return }
                while keepGoing() {
                    guard try store.mergeSearchIndexes() else {
                        indexesRestingUntil = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
                        return
                    }
                }
            } catch {
                Console.error("could not compress raw mail or merge the search indexes: \(error)")
                restingUntil = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
            }
        }
    }
}
