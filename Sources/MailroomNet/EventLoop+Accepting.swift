import Glibc
private import CLibevent

/// Taking connections in: the caps, refusing cheaply, and resting the listener when it must.
extension EventLoop {
    func accept(_ fd: Int32, peer: String) {
        guard !isStopping else {
            Socket(fd).close()
            return
        }
        let verdict = admission.admit(peer)
        guard verdict == .admitted else {
            refusals.refused(verdict, peer: peer, limits: admission)
            shed(fd, saying: Self.busyAnswer, pausing: verdict == .full ? listener : nil, until: resumeListener)
            return
        }
        nextSerial += 1
        guard let connection = Connection(loop: self, socket: fd, peer: peer, serial: nextSerial) else {
            admission.leave(peer)
            Socket(fd).close()
            return
        }
        connections[nextSerial] = connection
        peers[nextSerial] = peer
    }

    func acceptMail(_ fd: Int32, peer: String) {
        guard !isStopping, let mail else {
            Socket(fd).close()
            return
        }
        let verdict = mail.admit(peer)
        guard verdict == .admitted else {
            shed(fd, saying: mail.refusal(verdict), pausing: verdict == .full ? mailListener : nil, until: resumeMailListener)
            return
        }
        nextSerial += 1
        guard let session = MailConnection(loop: self, shared: mail, socket: fd, peer: peer, serial: nextSerial) else {
            mail.leave(peer)
            Socket(fd).close()
            return
        }
        mailSessions[nextSerial] = session
    }

    /// Refuses a connection as cheaply as it can be: one non-blocking send of a ready answer
    /// (what the socket does not take at once is dropped) and a close. When every slot is
    /// taken the listener also rests, so the next arrivals wait in the kernel's queue, costing
    /// nothing, rather than being accepted only to be refused.
    private func shed(_ fd: Int32, saying answer: [UInt8], pausing listener: OpaquePointer?, until resume: OpaquePointer?) {
        let socket = Socket(fd)
        _ = socket.sendNow(answer)
        socket.close()
        if let listener { pause(listener, resume: resume, milliseconds: 100) }
    }

    /// accept(2) failed. Out of descriptors (or memory) the socket stays readable, so the
    /// listener rests for half a second, as nginx does, instead of failing again at once. Any
    /// other failure (a connection's own network error, which Linux reports here) is retried.
    func acceptFailed(_ failing: OpaquePointer?, _ code: Int32) {
        guard let failing, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code) else { return }
        if failing == mailListener, let mail {
            mail.refusals.outOfDescriptors(limits: mail.admission)
            pause(failing, resume: resumeMailListener, milliseconds: 500)
        } else {
            refusals.outOfDescriptors(limits: admission)
            pause(failing, resume: resumeListener, milliseconds: 500)
        }
    }

    private func pause(_ listener: OpaquePointer, resume: OpaquePointer?, milliseconds: Int) {
        guard let resume else { return }
        evconnlistener_disable(listener)
        var wait = timeval(tv_sec: milliseconds / 1000, tv_usec: suseconds_t((milliseconds % 1000) * 1000))
        event_add(resume, &wait)
    }

    /// What an HTTP client over a cap is told before the connection closes.
    private static let busyAnswer: [UInt8] = {
        let page = "<!doctype html><title>Too many connections</title><p>Mailroom has too many connections "
            + "open from your address or in all. Try again in a moment.\n"
        return Array(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html; charset=utf-8\r\n"
            + "Retry-After: 1\r\nConnection: close\r\nContent-Length: \(page.utf8.count)\r\n\r\n" + page).utf8)
    }()
}
