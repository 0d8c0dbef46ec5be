import Testing

/// DESIGN §4: walking Older from the top never shows a row twice and never skips a row that was
/// there when the walk began, while other people add, delete and move messages at the same time.
@Suite struct PagingUnderWritersTests {
    @Test func aWalkOfOlderWhileThreeClientsWriteNeverRepeatsOrSkipsARow() throws {
        let original = (1...400).map { "Message \($0)" }
        let server = try TestServer(library: TestServer.library(inbox: original), pageSize: 20)
        let port = server.port
        let seen = SharedValue<[String]>([])
        let deleted = SharedValue<Set<String>>([])
        let moved = SharedValue<Set<String>>([])
        let walking = SharedValue(true)
        let problems = SharedValue<[String]>([])
        try TestThreads.runTogether(4) { client in
            let connection = HTTPClient(port: port, timeoutSeconds: 10)
            defer { connection.close() }
            if client == 0 {
                // The walk: every page of Older, from the top to the end.
                var target: String? = "/mailboxes/inbox"
                while let next = target {
                    do {
                        let page = try connection.send("GET", next)
                        seen.withLock { $0 += ListHTML.subjects(in: page.text) }
                        target = ListHTML.olderLink(in: page.text)
                    } catch {
                        problems.withLock { $0.append("GET \(next): \(error)") }
                        target = nil
                    }
                }
                walking.withLock { $0 = false }
                return
            }
            // The writers: add on top, delete a row here and there, move one up, until the walk ends.
            var step = 0
            while walking.withLock({ $0 }) && step < 300 {
                step += 1
                let id = 1 + (client * 97 + step * 31) % 400
                let fields: [(String, String)] = switch step % 3 {
                case 0: [("action", "add"), ("subject", "New \(client)-\(step)")]
                case 1: [("delete", String(id))]
                default: [("mode", "active"), ("move-up", String(id))]
                }
                do {
                    let answer = try connection.postForm("/mailboxes/inbox", fields)
                    if answer.status != 303 { problems.withLock { $0.append("\(fields): \(answer.status)") } }
                    if step % 3 == 1 { _ = deleted.withLock { $0.insert("Message \(id)") } }
                    if step % 3 == 2 { _ = moved.withLock { $0.insert("Message \(id)") } }
                } catch {
                    problems.withLock { $0.append("\(fields): \(error)") }
                }
            }
        }
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 })")
        let walked = seen.withLock { $0 }
        let (gone, shifted) = (deleted.withLock { $0 }, moved.withLock { $0 })
        // Only a row that a writer itself moved may pass the walk's place (and be seen twice or
        // not at all); every other row is seen once, unless it was deleted first.
        let repeated = Dictionary(grouping: walked, by: { $0 }).filter { $0.value.count > 1 && !shifted.contains($0.key) }
        #expect(repeated.isEmpty, "rows shown twice: \(repeated.keys.sorted())")
        let missed = original.filter { !gone.contains($0) && !shifted.contains($0) && !walked.contains($0) }
        #expect(missed.isEmpty, "rows skipped: \(missed)")
        // The writers really wrote while the walk went on.
        #expect(walked.count > 100 && gone.count > 5 && shifted.count > 5)
    }
}
