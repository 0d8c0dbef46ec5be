import Glibc
@testable import MailroomNet
import Testing

/// A repeated answer sent from a file in memory: the socket gets the file's bytes, head then
/// body, and says how many it took when it cannot take them all.
@Suite struct AnswerFileTests {
    private func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    /// A connected pair of stream sockets, the first not blocking.
    private func pair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    private func read(_ count: Int, from descriptor: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < count {
            let got = recv(descriptor, &buffer, min(buffer.count, count - received.count), 0)
            guard got > 0 else { break }
            received += buffer[..<got]
        }
        return received
    }

    @Test func theSocketGetsTheHeadThenTheBody() throws {
        let (sender, receiver) = try pair()
        defer { close(sender); close(receiver) }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 40000\r\n\r\n".utf8)
        let body = bytes(40_000, seed: 7)
        let file = try #require(AnswerFile(head: head, body: body))
        #expect(file.count == head.count + body.count)
        #expect(Socket(sender).sendNow(file) == file.count)
        #expect(read(file.count, from: receiver) == head + body)
    }

    @Test func aFullSocketTakesPartAndSaysHowMuch() throws {
        let (sender, receiver) = try pair()
        defer { close(sender); close(receiver) }
        let head = Array("HTTP/1.1 200 OK\r\n\r\n".utf8)
        let body = bytes(4 << 20, seed: 3)
        let file = try #require(AnswerFile(head: head, body: body))
        let taken = Socket(sender).sendNow(file)
        #expect(taken > 0 && taken < file.count, "took \(taken) of \(file.count)")
        #expect(read(taken, from: receiver) == Array((head + body)[..<taken]))
        // Nothing more was sent than it said.
        var extra: UInt8 = 0
        #expect(recv(receiver, &extra, 1, Int32(MSG_DONTWAIT)) < 0)
    }

    @Test func anEmptyBodyMakesAFileOfTheHeadAlone() throws {
        let head = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        let file = try #require(AnswerFile(head: head, body: []))
        #expect(file.count == head.count)
    }
}
