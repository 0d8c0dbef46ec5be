import MailroomCore
import Testing

/// Which mailboxes a mail goes to, from its envelope recipients.
@Suite struct RoutingTests {
    let routing = Routing(
        mailboxes: [(.inbox, "Inbox"), (.archive, "Archive"), (.trash, "Trash"),
                    (MailboxID(rawValue: 100), "Build Alerts"), (MailboxID(rawValue: 101), "Scans"),
                    (MailboxID(rawValue: 102), "Équipe Nord 2"), (MailboxID(rawValue: 103), "--")],
        addresses: [("scanner@office.test", MailboxID(rawValue: 101)), ("*@ci.example.test", MailboxID(rawValue: 100))])

    @Test(arguments: [
        (["scanner@office.test"], [101]),
        (["<Scanner@Office.TEST>"], [101]),
        (["\t <Scans@Anywhere.TEST>\r\n"], [101]),
        (["\u{00A0}<Scans@Anywhere.TEST>\u{2003}"], [101]),
        (["Anything@CI.example.test"], [100]),
        (["anything@ci.example.test"], [100]),
        (["ops+build-alerts@example.test"], [100]),
        (["build.alerts@example.test"], [100]),
        (["scans@anywhere.test"], [101]),
        (["me+scans@anywhere.test", "scanner@office.test", "x@ci.example.test"], [100, 101]),
        (["archive@example.test"], [2]),
        (["trash@example.test"], [1]),
        (["someone@example.test"], [1]),
        (["someone@sub.ci.example.test"], [1]),
        (["équipe.nord.2@example.test"], [102]),
        (["ÉQUIPE_NORD2@example.test"], [102]),
        (["x+EQUIPENORD2@example.test"], [1]),
        (["--@example.test"], [1]),
        ([], [1]),
    ] as [([String], [Int64])])
    func recipientsRouteToTheMailboxesTheyName(recipients: [String], expected: [Int64]) {
        #expect(routing.mailboxes(for: recipients).map(\.rawValue) == expected)
    }

    @Test(arguments: [
        ("scanner@office.test", "scanner@office.test"),
        ("  Printer@Office.Test ", "printer@office.test"),
        ("<ci@example.test>", "ci@example.test"),
        ("*@Example.test", "*@example.test"),
    ])
    func patternsAreKeptLowercased(text: String, expected: String) {
        #expect(Routing.pattern(text) == expected)
    }

    @Test(arguments: ["", "no-at-sign", "@example.test", "a@", "a b@example.test", "a@*.test", "x*y@example.test",
                      "a@b@c", "a,b@example.test"])
    func whatIsNotAnAddressIsRefused(text: String) {
        #expect(Routing.pattern(text) == nil)
    }
}
