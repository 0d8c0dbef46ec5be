import Foundation
import MailroomNet
import Testing

/// SMTP sessions run on half of the event loops (at least one), HTTP on all of them: each loop
/// that takes a protocol has a listening socket of its own on its port (`SO_REUSEPORT`), so
/// the kernel's table of listening sockets shows how many loops take each.
@Suite struct MailLoopsTests {
    @Test(arguments: [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4)])
    func mailTakesHalfTheLoops(threads: Int, mailThreads: Int) {
        #expect(ServerConfiguration(threads: threads).mailThreads == mailThreads)
    }

    @Test func withFourLoopsTwoListenForMailAndAllFourForPages() throws {
        let server = try SMTPTestServer("mail-loops", extra: ["--threads", "4"])
        #expect(try Self.listeners(onPort: server.mailroom.port) == 4)
        #expect(try Self.listeners(onPort: server.smtpPort) == 2)

        // Sessions opened together all get a greeting and store their message.
        let sessions = try (0..<6).map { _ in try server.session() }
        for (index, session) in sessions.enumerated() {
            let reply = try session.sendMessage("Subject: loop \(index)\r\n\r\nOne of six.\r\n")
            #expect(reply.code == 250, "session \(index): \(reply)")
        }
        for session in sessions { session.close() }
        let subjects = try server.mailroom.inboxRows().map(\.subject)
        #expect(Set(subjects).isSuperset(of: (0..<6).map { "loop \($0)" }))
        #expect(try server.stop() == 0)
    }

    /// Sockets listening on 127.0.0.1:`port`, from /proc/net/tcp (state 0A is LISTEN).
    static func listeners(onPort port: Int) throws -> Int {
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }.count
    }
}
