import Glibc
import HTTP
private import CLibevent

/// One libevent `event_base` and its `evhttp`, living on one thread for their whole life.
final class EventLoop {
    private let base: OpaquePointer
    private let http: OpaquePointer
    private let handler: Handler
    private let errorPage: ErrorHandler
    private let limits: ServerConfiguration
    private let log: AccessLog

    /// Builds the loop on the calling thread, which must be the thread that runs it.
    init(
        socket: Int32, configuration: ServerConfiguration, handler: @escaping Handler,
        errorPage: @escaping ErrorHandler, log: AccessLog
    ) throws(ServerError) {
        guard let base = event_base_new() else { throw ServerError(description: "event_base_new failed") }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            throw ServerError(description: "evhttp_new failed")
        }
        self.base = base
        self.http = http
        self.handler = handler
        self.errorPage = errorPage
        self.limits = configuration
        self.log = log

        evhttp_set_max_body_size(http, configuration.libeventBodyCap)
        evhttp_set_max_headers_size(http, configuration.libeventHeaderCap)
        evhttp_set_timeout(http, Int32(configuration.timeoutSeconds))
        // Without this evhttp labels body-less responses (303, 304) as Latin-1 HTML.
        evhttp_set_default_content_type(http, nil)
        // Let every method reach the handler, which answers 405 with an Allow header
        // instead of libevent's bare 501.
        let everyMethod = EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue
            | EVHTTP_REQ_PUT.rawValue | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue
            | EVHTTP_REQ_TRACE.rawValue | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(http, UInt16(everyMethod))

        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, { request, context in
            guard let request, let context else { return }
            Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().respond(to: request)
        }, context)
        // libevent writes at most 16 KiB per call by default, so a page just over that waits
        // ~40 ms for a delayed ACK; a larger single write sends it at once.
        evhttp_set_bevcb(http, { base, _ in
            let bufferevent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
            if let bufferevent { bufferevent_set_max_single_write(bufferevent, 1 << 20) }
            return bufferevent
        }, nil)

        guard evhttp_accept_socket_with_handle(http, socket) != nil else {
            evhttp_free(http)
            event_base_free(base)
            throw ServerError(description: "evhttp_accept_socket_with_handle failed")
        }
    }

    deinit {
        // libevent 2.1 closes the accepted listening socket here.
        evhttp_free(http)
        event_base_free(base)
    }

    /// Runs until `stop` is called from any thread.
    func run() {
        event_base_dispatch(base)
    }

    /// A handle that another thread may use to stop this loop.
    var stopper: LoopStopper { LoopStopper(base: base) }

    private func respond(to request: OpaquePointer) {
        let started = Clock.now
        let method = Self.method(of: request)
        let rawTarget = evhttp_request_get_uri(request).map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))) } ?? []
        // For the log line only; the request itself is refused below if these bytes are not UTF-8.
        let target = String(decoding: rawTarget.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let response: Response
        do {
            let parsed = try checkedRequest(request, method: method, rawTarget: rawTarget)
            response = handler(parsed)
        } catch {
            response = errorPage(error)
        }
        let sent = send(response, for: request, isHead: method == .head)
        log.record(
            peer: Self.peer(of: request), method: method.name, target: target,
            status: response.status.code, bytes: sent, started: started)
    }

    /// The request, unless it is over one of the configured limits or framed ambiguously.
    private func checkedRequest(_ request: OpaquePointer, method: HTTP.Method, rawTarget: [CChar]) throws(HTTPError) -> Request {
        guard rawTarget.count <= limits.maxURLBytes else {
            throw HTTPError(.uriTooLong, "The address is longer than \(limits.maxURLBytes) bytes.")
        }
        guard let target = String(validating: rawTarget.map { UInt8(bitPattern: $0) }, as: UTF8.self) else {
            throw HTTPError(.badRequest, "The address is not valid UTF-8.")
        }
        let headers = Self.headers(of: request)
        let headerBytes = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        guard headerBytes <= limits.maxHeaderBytes, headers.fields.count <= limits.maxHeaderCount else {
            throw HTTPError(.headersTooLarge, "The request has more than \(limits.maxHeaderCount) header fields "
                + "or more than \(limits.maxHeaderBytes) bytes of them.")
        }
        try Framing.check(method: method, headers: headers)
        let body = Self.body(of: request)
        guard body.count <= limits.maxBodyBytes else {
            throw HTTPError(.contentTooLarge, "The request's body is larger than \(limits.maxBodyBytes) bytes.")
        }
        var parsed = try Request(method: method, target: target, headers: headers, body: body)
        parsed.peer = Self.peer(of: request)
        return parsed
    }

    /// Writes `response`; for HEAD, only the headers with the length the body would have.
    private func send(_ response: Response, for request: OpaquePointer, isHead: Bool) -> Int {
        let headers = evhttp_request_get_output_headers(request)
        for field in response.headers {
            evhttp_add_header(headers, field.name, field.value)
        }
        if response.status != .notModified {
            evhttp_add_header(headers, "Content-Length", String(response.body.count))
        }
        // evhttp would write a HEAD body if given one, so it is never given one.
        if !isHead && !response.body.isEmpty {
            let output = evhttp_request_get_output_buffer(request)
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(output, bytes.baseAddress, bytes.count)
            }
        }
        evhttp_send_reply(request, Int32(response.status.code), response.status.reason, nil)
        return isHead ? 0 : response.body.count
    }

    private static func method(of request: OpaquePointer) -> HTTP.Method {
        switch evhttp_request_get_command(request) {
        case EVHTTP_REQ_GET: .get
        case EVHTTP_REQ_HEAD: .head
        case EVHTTP_REQ_POST: .post
        case EVHTTP_REQ_PUT: .put
        case EVHTTP_REQ_DELETE: .delete
        case EVHTTP_REQ_OPTIONS: .options
        case EVHTTP_REQ_PATCH: .patch
        case EVHTTP_REQ_TRACE: .trace
        case EVHTTP_REQ_CONNECT: .connect
        default: .other("UNKNOWN")
        }
    }

    private static func headers(of request: OpaquePointer) -> Headers {
        var headers = Headers()
        var field = evhttp_request_get_input_headers(request)?.pointee.tqh_first
        while let current = field {
            if let key = current.pointee.key, let value = current.pointee.value {
                headers.add(String(cString: key), String(cString: value))
            }
            field = current.pointee.next.tqe_next
        }
        return headers
    }

    private static func body(of request: OpaquePointer) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(request) else { return [] }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let copied = bytes.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, length) }
        return copied == length ? bytes : Array(bytes.prefix(max(copied, 0)))
    }

    private static func peer(of request: OpaquePointer) -> String {
        guard let connection = evhttp_request_get_connection(request) else { return "-" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { String(cString: $0) } ?? "-"
    }
}

/// Stops one event loop from another thread; safe once `evthread_use_pthreads` has run.
struct LoopStopper: @unchecked Sendable {
    fileprivate let base: OpaquePointer

    func stop() {
        event_base_loopexit(base, nil)
    }
}

/// Turns on libevent's locking once per process, before any event base exists.
enum LibeventThreads {
    static let enabled: Bool = evthread_use_pthreads() == 0
}
