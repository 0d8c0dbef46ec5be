import Dispatch
import Glibc
import MailroomStore

/// Compresses raw mail in the background (Store+Packing.swift): mail kept as it came by an
/// older Mailroom, and mail stored before its mailbox had a dictionary. Every quarter second it
/// packs batches for at most a tenth of a second, so it takes under half of one core and intake
/// waits at most for one batch's short write; once nothing is left it rests. Every 10 s it
/// looks for mailboxes that have grown enough mail for a dictionary.
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
        var nextTraining: UInt64 = 0

        func tick(_ store: Store) {
            let now = DispatchTime.now().uptimeNanoseconds
            do throws(StoreError) {
                if now >= nextTraining {
                    nextTraining = now + 10_000_000_000
                    if try store.trainRawDictionaries(at: Int64(time(nil))) > 0 { restingUntil = 0 }
                }
                guard now >= restingUntil else { return }
                let deadline = now + 100_000_000
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    guard try store.packRaws() > 0 else {
                        restingUntil = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
                        if announced {
                            Console.out("mailroom: all raw mail is compressed")
                            announced = false
                        }
                        return
                    }
                }
            } catch {
                Console.error("could not compress raw mail: \(error)")
                restingUntil = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
            }
        }
    }
}
