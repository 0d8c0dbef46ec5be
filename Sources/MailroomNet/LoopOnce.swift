private import CLibevent

extension EventLoop {
    /// Runs `job` on the thread of the loop whose base is `base`, at its next turn; false if
    /// libevent could not take it. `event_base_once` may be called from any thread once
    /// `evthread_use_pthreads` has run: it wakes the loop and frees its own event. The clients
    /// that other threads hand work to (relay, webhooks) reach their loop through this.
    static func once(on base: OpaquePointer, _ job: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Job(job)).toOpaque()
        var now = timeval(tv_sec: 0, tv_usec: 0)
        let added = event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, context in
            guard let context else { return }
            Unmanaged<Job>.fromOpaque(context).takeRetainedValue().run()
        }, box, &now)
        guard added == 0 else {
            Unmanaged<Job>.fromOpaque(box).release()
            return false
        }
        return true
    }

    /// A closure on its way to a loop's thread.
    private final class Job: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}
