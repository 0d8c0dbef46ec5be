import Glibc

/// Starts a POSIX thread running `body`; the thread, or the error number when none could start.
func startThread(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, ThreadError> {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    let status = pthread_create(&thread, nil, { context in
        guard let context else { return nil }
        Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return .failure(ThreadError(status: status))
    }
    return .success(thread)
}

struct ThreadError: Error {
    let status: Int32
}
