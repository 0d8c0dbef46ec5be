import MailroomCore
import MailroomStore
import Testing

@Suite struct RoundTripTests {
    @Test func twoHundredRandomCommandsSavedOneByOneLoadEqualAfterEveryReopening() throws {
        try withTemporaryPath { path in
            var store = try Store(path: path)
            var saved = try store.load()
            var library = saved
            var script = CommandScript(seed: 0x6D61_696C_726F_6F6D)
            for step in 1...200 {
                let command = try script.runOne(on: &library)
                try store.save(library.changes(since: saved))
                saved = library
                #expect(Snapshot(try store.load()) == Snapshot(library), "step \(step): \(command)")
                if step.isMultiple(of: 20) {
                    store.close()
                    store = try Store(path: path)
                    let loaded = try store.load()
                    #expect(Snapshot(loaded) == Snapshot(library), "reopened after step \(step): \(command)")
                    #expect(try store.integrityCheck() == "ok")
                    // Go on from what was read back, as the app does after a restart.
                    library = loaded
                    saved = loaded
                }
            }
            #expect(script.ran == Set(CommandScript.Kind.allCases), "the seed should exercise every command")
            #expect(library.mailboxes.flatMap(\.messages).count > 10, "the seed should leave messages behind")
            store.close()
        }
    }

    @Test func eachKindOfCommandSurvivesReopening() throws {
        try withTemporaryPath { path in
            var library = Library()
            var saved = library
            let store = try Store(path: path)
            func save() throws {
                try store.save(library.changes(since: saved))
                saved = library
            }
            for subject in ["one", "two", "three", "four"] {
                try library.add(Draft(subject: subject, body: "body of \(subject)", author: "Ann"), to: .inbox, at: 10)
                try save()
            }
            let projects = try library.createMailbox(named: "Projects")
            try save()
            try library.move([MessageID(2)], from: .inbox, to: projects)
            try save()
            try library.move([MessageID(3), MessageID(1)], from: .inbox, to: .trash)
            try save()
            library.restore([MessageID(1)])
            try save()
            try library.renameMailbox(projects, to: "Work")
            try save()
            try library.update(.inbox) { (mailbox: inout Mailbox) throws(MailboxError) in
                try mailbox.move(fromOffsets: [0], toOffset: 2)
                mailbox.setFlagged(true, for: [MessageID(4)])
                mailbox.setUnread(false, for: [MessageID(1)])
            }
            try save()
            let archived = try library.createMailbox(named: "Old")
            try library.move([MessageID(4)], from: .inbox, to: archived)
            try library.deleteMailbox(archived)
            try save()
            store.close()

            let reopened = try Store(path: path)
            let loaded = try reopened.load()
            #expect(Snapshot(loaded) == Snapshot(library))
            #expect(loaded[projects]?.name == "Work")
            #expect(loaded[.trash]?.messages.first?.origin == Origin(mailbox: archived, offset: 0))
            #expect(loaded[.inbox]?.message(MessageID(1))?.isUnread == false)
            #expect(try reopened.integrityCheck() == "ok")
            reopened.close()
        }
    }

    @Test func idsAreNeverReusedAfterReopeningEvenWhenTheHighestWasDeletedPermanently() throws {
        try withTemporaryPath { path in
            var library = Library()
            let store = try Store(path: path)
            for subject in ["a", "b", "c"] {
                try library.add(Draft(subject: subject), to: .inbox, at: 1)
            }
            try library.move([MessageID(3)], from: .inbox, to: .trash)
            library.deletePermanently([MessageID(3)])
            let box = try library.createMailbox(named: "Short-lived")
            try library.deleteMailbox(box)
            try store.save(library.changes(since: Library()))
            store.close()

            let reopened = try Store(path: path)
            var loaded = try reopened.load()
            #expect(loaded.message(MessageID(3)) == nil)
            #expect(loaded[box] == nil)
            #expect(loaded.nextMessageID == 4)
            #expect(loaded.nextMailboxID == box.rawValue + 1)
            let next = try loaded.add(Draft(subject: "d"), to: .inbox, at: 2)
            #expect(next.id == MessageID(4))
            #expect(try loaded.createMailbox(named: "Another").rawValue == box.rawValue + 1)
            reopened.close()
        }
    }

    @Test func integrityCheckSaysOKAfterSaves() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            var library = try store.load()
            var script = CommandScript(seed: 42)
            for _ in 1...50 {
                let saved = library
                _ = try script.runOne(on: &library)
                try store.save(library.changes(since: saved))
            }
            #expect(try store.integrityCheck() == "ok")
            store.close()
        }
    }
}

@Suite struct DurabilityTests {
    @Test func aSavedChangeIsOnDiskBeforeSaveReturnsAsIfTheProcessWereKilledThen() throws {
        try withTemporaryPath { path in
            try withTemporaryPath { copy in
                let store = try Store(path: path)
                var library = Library()
                try library.add(Draft(subject: "acknowledged"), to: .inbox, at: 1)
                try store.save(library.changes(since: Library()))
                // The files as they are now, while the store is still open, are what kill -9 would leave.
                write(contents(of: path) ?? [], to: copy)
                write(contents(of: path + "-wal") ?? [], to: copy + "-wal")
                let recovered = try Store(path: copy)
                #expect(Snapshot(try recovered.load()) == Snapshot(library))
                recovered.close()
                store.close()
            }
        }
    }
}
