import Glibc

/// A small HTTP server in Python on a free loopback port (127.0.0.1, and ::1 when it can),
/// standing in for a webhook receiver. It reads each request whole and prints a line for what
/// it sees: `request <base64 of the head, up to the blank line> <base64 of the body>`,
/// `tls-failed <why>`, `no-request`, `closed`. It answers `status` with a body of `bodyBytes`
/// bytes, or with `silent` never answers and waits for the client to hang up. Its output is
/// read only when a test waits on it: a pipe's 64 KiB of unread lines (a few hundred small
/// requests) would stall it.
final class WebhookReceiver {
    private let peer: PythonPeer
    var port: Int { peer.port }
    private var process: ChildProcess { peer.process }

    /// One request as it came over the wire.
    struct Request {
        let head: [UInt8]
        let body: [UInt8]

        var headText: String { String(decoding: head, as: UTF8.self) }
    }

    init(status: Int = 200, bodyBytes: Int = 0, silent: Bool = false, tls: (certificate: String, key: String)? = nil) throws {
        var arguments = ["--status", String(status), "--body-bytes", String(bodyBytes)]
        if silent { arguments.append("--silent") }
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        peer = try PythonPeer(named: "webhook-receiver", source: Self.source, arguments: arguments)
    }

    /// The first request, once it has come in whole.
    func firstRequest(within seconds: Double = 20) throws -> Request {
        let line = try process.waitForOutputLine(within: seconds) { $0.hasPrefix("request ") }
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3, let head = Base64Text.decode(String(fields[1])), let body = Base64Text.decode(String(fields[2])) else {
            throw TestFailure("bad request line from the receiver: \(line)")
        }
        return Request(head: head, body: body)
    }

    /// Every request so far, once `count` connections have closed.
    func requests(afterClosing count: Int, within seconds: Double = 20) throws -> [Request] {
        _ = try process.waitForOutputLine(within: seconds) { _ in
            process.outputText.split(separator: "\n").filter { $0 == "closed" }.count >= count
        }
        return try process.outputText.split(separator: "\n").filter { $0.hasPrefix("request ") }.map { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let head = Base64Text.decode(String(fields[1])), let body = Base64Text.decode(String(fields[2])) else {
                throw TestFailure("bad request line from the receiver: \(line)")
            }
            return Request(head: head, body: body)
        }
    }

    /// Waits for the line that starts with `prefix`, and returns the rest of it.
    func waitFor(_ prefix: String, within seconds: Double = 20) throws -> String {
        let line = try process.waitForOutputLine(within: seconds) { $0.hasPrefix(prefix + " ") || $0 == prefix }
        return String(line.dropFirst(min(prefix.count + 1, line.count)))
    }

    /// Every line printed so far.
    var lines: [String] { process.outputText.split(separator: "\n").map(String.init) }

    private static let source = #"""
import base64, socket, ssl, sys, threading

status, body_bytes, silent, context = 200, 0, False, None
args = sys.argv[1:]
while args:
    option = args.pop(0)
    if option == "--status":
        status = int(args.pop(0))
    elif option == "--body-bytes":
        body_bytes = int(args.pop(0))
    elif option == "--silent":
        silent = True
    elif option == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.pop(0), args.pop(0))

lock = threading.Lock()

def say(*words):
    with lock:
        print(*words, flush=True)

def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return head, body

def serve(conn):
    try:
        if context is not None:
            try:
                conn = context.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError) as error:
                say("tls-failed", getattr(error, "reason", None) or error)
                return
        request = read_request(conn)
        if request is None:
            say("no-request")
            return
        head, body = request
        say("request", base64.b64encode(head).decode(), base64.b64encode(body).decode())
        if silent:
            while conn.recv(65536):
                pass
            return
        payload = b"x" * body_bytes
        conn.sendall(b"HTTP/1.1 %d Answer\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % (status, len(payload)) + payload)
    except OSError as error:
        say("error", error)
    finally:
        conn.close()
        say("closed")

def accept(listener):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()

listeners = [socket.socket(socket.AF_INET, socket.SOCK_STREAM)]
listeners[0].bind(("127.0.0.1", 0))
port = listeners[0].getsockname()[1]
try:
    six = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    six.bind(("::1", port))
    listeners.append(six)
except OSError:
    pass
for listener in listeners:
    listener.listen(64)
    threading.Thread(target=accept, args=(listener,), daemon=True).start()
say("listening", port)
threading.Event().wait()
"""#
}
