import MailroomService
import Synchronization
import Testing

@Suite struct EventHubTests {
    private func event(_ id: Int64) -> ServerEvent {
        ServerEvent(id: id, name: "change", data: "{\"revision\":\(id)}")
    }

    @Test func aResumeGetsEveryEventAfterTheOneItSaw() {
        let hub = EventHub(lastID: 10, capacity: 8)
        for id: Int64 in 11...15 { hub.publish(event(id)) }
        #expect(hub.events(after: 12)?.map(\.id) == [13, 14, 15])
        #expect(hub.events(after: 10)?.map(\.id) == [11, 12, 13, 14, 15])
        #expect(hub.events(after: 15) == [])
        #expect(hub.events(after: 99) == [])
        #expect(hub.lastID == 15)
    }

    @Test func eventsNoLongerKeptAskTheClientToStartOver() {
        let hub = EventHub(lastID: 0, capacity: 4)
        for id: Int64 in 1...10 { hub.publish(event(id)) }
        #expect(hub.events(after: 6)?.map(\.id) == [7, 8, 9, 10])
        #expect(hub.events(after: 5) == nil)
        #expect(hub.events(after: 0) == nil)
        // Before any event: what happened before the hub started is gone too.
        #expect(EventHub(lastID: 20).events(after: 19) == nil)
    }

    @Test func olderIdsAreDroppedAndListenersWokenForEachNewOne() {
        let hub = EventHub(lastID: 5)
        let woken = Mutex(0)
        let token = hub.listen { woken.withLock { $0 += 1 } }
        hub.publish(event(6))
        hub.publish(event(6))
        hub.publish(event(4))
        hub.publish(event(7))
        #expect(woken.withLock { $0 } == 2)
        hub.stopListening(token)
        hub.publish(event(8))
        #expect(woken.withLock { $0 } == 2)
        #expect(hub.events(after: 5)?.map(\.id) == [6, 7, 8])
    }

    @Test func aLineBreakInDataCannotEndTheEventEarly() {
        let text = String(decoding: ServerEvent(id: 3, name: "change", data: "a\n\nid: 99\r\nb").bytes, as: UTF8.self)
        #expect(text == "id: 3\nevent: change\ndata: a\ndata: \ndata: id: 99\ndata: b\n\n")
    }
}
