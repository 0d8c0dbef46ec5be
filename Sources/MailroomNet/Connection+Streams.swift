import Glibc
import HTTP
import MailroomService
private import CLibevent

/// Event streams (`text/event-stream`): the connection stays open and is written the hub's events.
extension Connection {
    /// A stream whose client has not taken this much is dropped: it can reconnect and resume.
    private static let maxUnsentStreamBytes = 1 << 20
    /// The kernel's send buffer for an event stream (Linux doubles what is asked).
    private static let streamSendBufferBytes: Int32 = 16 * 1_024

    /// Answers with the stream's head and what the client missed, then keeps the connection
    /// for the hub's events. A client that says `Last-Event-ID` is sent every event after it
    /// (or `reset` when they are no longer kept); a new one starts at the newest event (`ready`).
    func startStream(_ response: Response, request: Request, events: EventHub, started: Clock.Instant) {
        isStream = true
        streamStartedAt = Int64(Glibc.time(nil))
        disarmDeadline()
        input = []
        loop.log.metrics.eventClients.wrappingAdd(1, ordering: .relaxed)
        // Idle is normal for a stream: only a client that stops taking what is written is cut off.
        timeReads(false)
        // A small kernel send buffer: what a client does not take backs up into libevent's
        // buffer soon, where the write timeout sees it, instead of megabytes of kernel memory
        // hiding it. Events are small; a healthy client takes them as they come.
        var sendBuffer = Self.streamSendBufferBytes
        setsockopt(bufferevent_getfd(bufferevent), SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        var body = Array("retry: 2000\n\n".utf8)
        let newest = events.lastID
        if let text = request.headers["Last-Event-ID"], let after = Int64(text.split(separator: " ").first ?? ""), after <= newest {
            if let missed = events.events(after: after) {
                for event in missed { body += event.bytes }
                lastEventID = missed.last?.id ?? after
            } else {
                body += ServerEvent(id: newest, name: "reset", data: "{}").bytes
                lastEventID = newest
            }
        } else {
            body += ServerEvent(id: newest, name: "ready", data: "{}").bytes
            lastEventID = newest
        }
        write(response.streamHead(date: loop.date) + body)
        loop.addStream(self)
        loop.log.record(peer: peer, method: request.method.name, target: request.target, status: 200, bytes: 0, started: started)
    }

    /// Writes `bytes` (the events after `lastEventID`, or nil when they are no longer kept) and
    /// moves the stream on to `upTo`.
    func push(_ bytes: [UInt8]?, upTo newest: Int64) {
        guard isStream, !isClosed else { return }
        lastEventID = newest
        write(bytes ?? ServerEvent(id: newest, name: "reset", data: "{}").bytes)
    }

    func pushHeartbeat() {
        guard isStream, !isClosed else { return }
        if Int64(Glibc.time(nil)) - streamStartedAt >= Int64(loop.configuration.maxStreamSeconds) {
            close()
            return
        }
        write(Array(": keep-alive\n\n".utf8))
    }

    /// Straight to the socket when nothing is queued, else behind what is; a client that has
    /// let too much pile up is dropped.
    private func write(_ bytes: [UInt8]) {
        let writer = writer
        guard writer.queued < Self.maxUnsentStreamBytes else {
            close()
            return
        }
        writer.write(bytes)
    }

}
