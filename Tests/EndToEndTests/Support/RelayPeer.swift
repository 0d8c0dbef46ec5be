import Glibc

/// A small SMTP server in Python, for the relay client's error paths and for what smtp-sink
/// cannot do (STARTTLS, checking a login, the bytes exactly as sent). It prints what it sees,
/// a line each: `command <line>`, `auth <mechanism> <user> <password>`, `tls`,
/// `tls-failed <why>`, `data <base64 of the text as sent, final dot included>`, `closed`.
final class RelayPeer {
    private let peer: PythonPeer
    var port: Int { peer.port }
    private var process: ChildProcess { peer.process }

    /// `ehlo`: extension lines to announce. `answers`: replies by command ("EHLO", "MAIL", "DATA",
    /// "END" for the final dot, "RCPT" or "RCPT <ADDRESS>" in capitals, "CONNECT" for the
    /// greeting), where "silence" never answers and "close" hangs up. `tls`: a certificate
    /// and key to offer STARTTLS with.
    init(ehlo: [String] = [], answers: [String: String] = [:], tls: (certificate: String, key: String)? = nil) throws {
        var arguments: [String] = []
        for line in ehlo { arguments += ["--ehlo", line] }
        for (key, reply) in answers.sorted(by: { $0.key < $1.key }) { arguments += ["--answer", "\(key)=\(reply)"] }
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        peer = try PythonPeer(named: "relay-peer", source: Self.source, arguments: arguments)
    }

    /// Waits for the line that starts with `prefix`, and returns the rest of it.
    func waitFor(_ prefix: String, within seconds: Double = 20) throws -> String {
        let line = try process.waitForOutputLine(within: seconds) { $0.hasPrefix(prefix + " ") || $0 == prefix }
        return String(line.dropFirst(min(prefix.count + 1, line.count)))
    }

    /// Every line printed so far, once the session has ended.
    func linesOfSession(within seconds: Double = 20) throws -> [String] {
        _ = try waitFor("closed", within: seconds)
        return process.outputText.split(separator: "\n").map(String.init)
    }

    /// Every line printed so far, once `count` sessions have ended.
    func linesOfSessions(_ count: Int, within seconds: Double = 20) throws -> [String] {
        try process.waitForOutputLines(within: seconds) { $0.filter { $0 == "closed" }.count >= count }
    }

    /// The text of the first message, as it came over the wire.
    func data(within seconds: Double = 20) throws -> [UInt8] {
        let encoded = try waitFor("data", within: seconds)
        guard let bytes = Base64Text.decode(encoded) else { throw TestFailure("bad base64 from the peer: \(encoded)") }
        return bytes
    }

    private static let source = #"""
import base64, socket, ssl, sys

answers, ehlo, tls = {}, [], None
args = sys.argv[1:]
while args:
    option = args.pop(0)
    if option == "--ehlo":
        ehlo.append(args.pop(0))
    elif option == "--answer":
        key, _, reply = args.pop(0).partition("=")
        answers[key.upper()] = reply
    elif option == "--tls":
        tls = (args.pop(0), args.pop(0))

def say(*words):
    print(*words, flush=True)

class Hangup(Exception):
    pass

class Session:
    def __init__(self, conn):
        self.conn, self.buffer, self.secure = conn, b"", False

    def fill(self):
        chunk = self.conn.recv(65536)
        if not chunk:
            raise Hangup()
        self.buffer += chunk

    def line(self):
        while b"\n" not in self.buffer:
            self.fill()
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r").decode("utf-8", "replace")

    def send(self, text):
        self.conn.sendall(text.encode() + b"\r\n")

    def answer(self, key, default):
        reply = answers.get(key, default)
        if reply == "silence":
            while True:
                self.fill()
        if reply == "close":
            raise Hangup()
        self.send(reply)

    def text(self):
        while True:
            framed = b"\r\n" + self.buffer
            end = framed.find(b"\r\n.\r\n")
            if end >= 0:
                self.buffer = framed[end + 5:]
                return framed[2:end + 2] + b".\r\n"
            self.fill()

def serve(session):
    session.answer("CONNECT", "220 peer ESMTP")
    while True:
        line = session.line()
        say("command", line)
        verb = line.split(" ")[0].upper()
        if verb == "EHLO" and "EHLO" in answers:
            session.answer("EHLO", "")
        elif verb == "EHLO":
            lines = ["peer"] + ehlo + (["STARTTLS"] if tls and not session.secure else [])
            for index, text in enumerate(lines):
                session.send(("250 " if index == len(lines) - 1 else "250-") + text)
        elif verb == "HELO":
            session.answer("HELO", "250 peer")
        elif verb == "STARTTLS":
            session.answer("STARTTLS", "220 2.0.0 Ready to start TLS")
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls[0], tls[1])
            try:
                session.conn = context.wrap_socket(session.conn, server_side=True)
            except (ssl.SSLError, OSError) as error:
                say("tls-failed", error)
                raise Hangup()
            session.secure, session.buffer = True, b""
            say("tls")
        elif verb == "AUTH":
            words = line.split(" ")
            mechanism = words[1].upper()
            if mechanism == "PLAIN":
                _, user, password = base64.b64decode(words[2]).split(b"\0")
            else:
                session.send("334 VXNlcm5hbWU6")
                user = base64.b64decode(session.line())
                session.send("334 UGFzc3dvcmQ6")
                password = base64.b64decode(session.line())
            say("auth", mechanism, user.decode(), password.decode())
            session.answer("AUTH", "235 2.7.0 Authentication successful")
        elif verb == "MAIL":
            session.answer("MAIL", "250 2.1.0 Ok")
        elif verb == "RCPT":
            address = line.partition("<")[2].partition(">")[0].upper()
            session.answer("RCPT " + address, answers.get("RCPT", "250 2.1.5 Ok"))
        elif verb == "DATA":
            session.answer("DATA", "354 End data with <CR><LF>.<CR><LF>")
            say("data", base64.b64encode(session.text()).decode())
            session.answer("END", "250 2.0.0 Ok: queued as PEER1")
        elif verb == "QUIT":
            session.answer("QUIT", "221 2.0.0 Bye")
            return
        else:
            session.send("250 2.0.0 Ok" if verb in ("RSET", "NOOP") else "502 5.5.2 Not here")

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(8)
say("listening", server.getsockname()[1])
while True:
    conn, _ = server.accept()
    session = Session(conn)
    try:
        serve(session)
    except (Hangup, OSError, ValueError, IndexError):
        pass
    session.conn.close()
    conn.close()
    say("closed")
"""#
}

/// Base64 for what the peer prints; the tests need no more than decoding.
enum Base64Text {
    static func decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 where byte != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: byte) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
