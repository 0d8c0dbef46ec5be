import Foundation
import HTTP
import MailroomCore
import MailroomService
import MailroomWeb
import Synchronization
import Testing

/// 2025-11-28 14:05:00 UTC, the only time the app under test ever sees.
let fixedNow: Int64 = 1_764_338_700

/// A `MailroomApp` over a mailbox filled through `Mailbox.add`, a fixed clock and its own public folder.
///
/// Requests go straight to `respond(to:)`: no sockets.
final class TestApp {
    let app: MailroomApp
    private let folder: URL

    /// A mailbox whose rows, top to bottom, have `subjects`.
    convenience init(_ subjects: String...) throws {
        try self.init(subjects: subjects)
    }

    init(subjects: [String], bodies: [String: String] = [:], times: [String: Int64] = [:]) throws {
        folder = try Self.makePublicFolder()

        var mailbox = Mailbox()
        // New messages go on top, so the bottom row is added first.
        for subject in subjects.reversed() {
            try mailbox.add(Draft(subject: subject, body: bodies[subject] ?? ""), at: times[subject] ?? fixedNow)
        }
        app = try MailroomApp(mailbox: mailbox, publicFolder: folder.path, now: { fixedNow })
    }

    /// An app over a whole library; `beforeCommit` runs inside every commit (and may fail it).
    init(library: Library, pageSize: Int = 500, beforeCommit: BeforeCommit? = nil) throws {
        folder = try Self.makePublicFolder()
        app = try MailroomApp(
            library: library, publicFolder: folder.path, now: { fixedNow }, pageSize: pageSize, beforeCommit: beforeCommit)
    }

    private static func makePublicFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("mailroom-web-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("body { margin: 0 }\n".utf8).write(to: folder.appendingPathComponent("style.css"))
        return folder
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: The library

    var library: Library { app.library }

    /// The subjects of mailbox `box`, top to bottom; empty when it does not exist.
    func subjects(in box: MailboxID) -> [String] { library[box]?.messages.map(\.subject) ?? [] }

    /// The id of the message with `subject`, in whichever mailbox it is.
    func anyID(_ subject: String, sourceLocation: SourceLocation = #_sourceLocation) -> MessageID {
        for mailbox in library.mailboxes {
            if let message = mailbox.messages.first(where: { $0.subject == subject }) { return message.id }
        }
        Issue.record("No message “\(subject)” in any mailbox", sourceLocation: sourceLocation)
        return MessageID(999_999)
    }

    // MARK: The mailbox

    var mailbox: Mailbox { app.snapshot }
    var subjects: [String] { mailbox.messages.map(\.subject) }

    /// The id of the message with `subject`.
    func id(_ subject: String, sourceLocation: SourceLocation = #_sourceLocation) -> MessageID {
        guard let message = mailbox.messages.first(where: { $0.subject == subject }) else {
            Issue.record("No message “\(subject)” in \(subjects)", sourceLocation: sourceLocation)
            return MessageID(999_999)
        }
        return message.id
    }

    /// The ids of the messages with `subjects`, as they appear in URLs.
    func ids(_ subjects: String...) -> [String] { subjects.map { id($0).description } }

    func message(_ subject: String) -> Message? { mailbox.messages.first { $0.subject == subject } }

    // MARK: Requests

    func respond(_ method: Method, _ target: String, headers: Headers = Headers(), body: String = "") throws -> Response {
        app.respond(to: try Request(method: method, target: target, headers: headers, body: Array(body.utf8)))
    }

    /// A GET as a browser makes it from one of Mailroom's own pages.
    func get(_ target: String) throws -> Response {
        try respond(.get, target, headers: Headers([("Sec-Fetch-Site", "same-origin")]))
    }

    func head(_ target: String) throws -> Response { try respond(.head, target) }

    /// A form post, as a browser sends it.
    func post(
        _ target: String, _ fields: [(String, String)],
        contentType: String = "application/x-www-form-urlencoded"
    ) throws -> Response {
        try respond(.post, target, headers: Headers([("Content-Type", contentType)]), body: FormData(fields).urlEncoded)
    }
}

/// A library with Inbox, Archive and, for each of `custom`, a mailbox of one's own (ids 100, 101, ...).
/// Messages are listed top to bottom and numbered 1, 2, 3, ... in the order they appear here: the
/// Inbox's first, then the Archive's, then each custom mailbox's. All are unread and unflagged
/// unless named in `read` or `flagged`.
func makeLibrary(
    inbox: [String], archive: [String] = [], custom: [(String, [String])] = [],
    read: Set<String> = [], flagged: Set<String> = []
) -> Library {
    var next: Int64 = 1
    func messages(_ subjects: [String]) -> [Message] {
        subjects.map { subject in
            defer { next += 1 }
            return Message(
                id: MessageID(next), subject: subject, body: "About \(subject).", author: "Ada",
                createdAt: fixedNow - next * 60, isUnread: !read.contains(subject), isFlagged: flagged.contains(subject))
        }
    }
    var boxes = [
        Mailbox(id: .inbox, name: "Inbox", messages: messages(inbox)),
        Mailbox(id: .archive, name: "Archive", messages: messages(archive)),
    ]
    for (offset, (name, subjects)) in custom.enumerated() {
        boxes.append(Mailbox(id: MailboxID(rawValue: MailboxID.firstCustom + Int64(offset)), name: name, messages: messages(subjects)))
    }
    return Library(mailboxes: boxes)
}

extension Response {
    var code: Int { status.code }
    var html: String { String(decoding: body, as: UTF8.self) }
    var location: String? { headers["Location"] }
    var contentType: String? { headers["Content-Type"] }
}

// MARK: Reading the markup

extension String {
    func occurrences(of part: String) -> Int {
        components(separatedBy: part).count - 1
    }

    /// Every opening tag `<name ...>`, in document order. Attribute values are escaped, so
    /// a `>` always ends the tag.
    func tags(_ name: String) -> [String] {
        var found: [String] = []
        var rest = self[...]
        while let start = rest.range(of: "<\(name)") {
            let after = rest[start.upperBound...]
            guard let end = after.firstIndex(of: ">") else { break }
            if let next = after.first, next == " " || next == ">" {
                found.append(String(rest[start.lowerBound...end]))
            }
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// The text between the first `<name ...>` and its `</name>`.
    func content(of name: String) -> String? {
        guard let open = tags(name).first, let start = range(of: open),
              let end = self[start.upperBound...].range(of: "</\(name)>")
        else { return nil }
        return String(self[start.upperBound..<end.lowerBound])
    }

    /// The value of `attribute` in this opening tag, still escaped.
    func attribute(_ attribute: String) -> String? {
        guard let start = range(of: " \(attribute)=\"") else { return nil }
        let rest = self[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// Whether this opening tag carries the boolean attribute `name`.
    func has(_ name: String) -> Bool {
        contains(" \(name) ") || contains(" \(name)>")
    }

    /// The opening tag with `id="..."`.
    func tag(id: String) -> String? {
        let marker = " id=\"\(id)\""
        guard let markerRange = range(of: marker),
              let start = self[..<index(after: markerRange.lowerBound)].lastIndex(of: "<"),
              let end = self[markerRange.upperBound...].firstIndex(of: ">")
        else { return nil }
        return String(self[start...end])
    }

    /// The whole `<li>` of a row, from its opening tag to its `</li>`.
    func row(_ id: MessageID) -> String? {
        guard let start = range(of: "<li class=\"row"),
              let open = self[start.lowerBound...].range(of: " id=\"message-\(id)\""),
              let begin = self[..<open.lowerBound].range(of: "<li", options: .backwards),
              let end = self[open.upperBound...].range(of: "</li>")
        else { return nil }
        return String(self[begin.lowerBound..<end.upperBound])
    }

    /// The message ids of the rows, top to bottom.
    var rowIDs: [String] {
        tags("li").compactMap { $0.attribute("data-id") }
    }

    /// The values of the selection checkboxes, and which of them are ticked.
    var checkboxes: [(value: String, isChecked: Bool)] {
        tags("input").filter { $0.attribute("type") == "checkbox" }.map { ($0.attribute("value") ?? "", $0.has("checked")) }
    }

    var checkedIDs: [String] { checkboxes.filter(\.isChecked).map(\.value) }

    /// The label of the submit button named `action` with value `action` ("Select All", "Delete (2)"):
    /// its text without the markup inside it, as a browser without CSS shows it.
    func buttonText(action: String) -> String? {
        guard let tag = tags("button").first(where: { $0.attribute("name") == "action" && $0.attribute("value") == action }),
              let start = range(of: tag),
              let end = self[start.upperBound...].range(of: "</button>")
        else { return nil }
        var text = ""
        var inTag = false
        for character in self[start.upperBound..<end.lowerBound] {
            switch character {
            case "<": inTag = true
            case ">": inTag = false
            default: if !inTag { text.append(character) }
            }
        }
        return text
    }
}

// MARK: Notices, forms and the sidebar

extension String {
    /// The markup between the first opening tag that contains `marker` and the end tag that closes it,
    /// counting nested tags of the same name.
    func element(containing marker: String) -> String? {
        guard let markerRange = range(of: marker),
              let start = self[..<index(after: markerRange.lowerBound)].lastIndex(of: "<"),
              let nameEnd = self[index(after: start)...].firstIndex(where: { $0 == " " || $0 == ">" })
        else { return nil }
        let name = String(self[index(after: start)..<nameEnd])
        var depth = 0
        var cursor = start
        while cursor < endIndex {
            let rest = self[cursor...]
            if rest.hasPrefix("</\(name)>") {
                depth -= 1
                if depth == 0 { return String(self[start..<index(cursor, offsetBy: name.count + 3)]) }
                cursor = index(cursor, offsetBy: name.count + 3)
            } else if rest.hasPrefix("<\(name) ") || rest.hasPrefix("<\(name)>") {
                depth += 1
                cursor = index(cursor, offsetBy: name.count + 1)
            } else {
                cursor = index(after: cursor)
            }
        }
        return nil
    }

    /// The sentence of the page's notice, without its Undo button; nil when there is no notice.
    var noticeText: String? {
        element(containing: " id=\"notice\"")?.content(of: "span")
    }

    /// A form's action and the fields it sends without a button (hidden and text inputs), found by its class.
    func form(class name: String) -> (action: String, fields: [(String, String)])? {
        guard let open = tags("form").first(where: { $0.attribute("class") == name }),
              let markup = element(containing: open)
        else { return nil }
        let fields = markup.tags("input").compactMap { input -> (String, String)? in
            guard let field = input.attribute("name"), input.attribute("type") != "checkbox" else { return nil }
            return (field, input.attribute("value") ?? "")
        }
        return (open.attribute("action") ?? "", fields)
    }

    /// The sidebar's mailboxes in order: slug, name, unread count (nil when none is shown) and aria-current.
    var sidebar: [(slug: String, name: String, unread: Int?, current: String?)] {
        guard let nav = element(containing: " id=\"mailboxes\"") else { return [] }
        return nav.tags("a").compactMap { link -> (String, String, Int?, String?)? in
            guard let slug = link.attribute("data-mailbox"), let markup = nav.element(containing: link) else { return nil }
            let name = markup.element(containing: "class=\"mailbox-name\"").flatMap { $0.content(of: "span") } ?? ""
            let unread = markup.element(containing: "class=\"unread-count\"").flatMap { $0.content(of: "span") }
            return (slug, name, unread.flatMap { Int($0) }, link.attribute("aria-current"))
        }
    }
}

/// The query of a redirect's Location as `[name, value]` pairs, with the path.
func split(location: String?, sourceLocation: SourceLocation = #_sourceLocation) throws -> (path: String, query: [[String]]) {
    let location = try #require(location, sourceLocation: sourceLocation)
    let request = try Request(method: .get, target: location)
    return (request.path, request.query.fields.map { [$0.name, $0.value] })
}

// MARK: Id lists in URLs

/// The ids of one compact id list such as `1,3-4`, read here on the test's side rather than with
/// the app's own decoder; nil when an item is not an id or an ascending range of them.
func decodeIDList(_ text: String) -> [MessageID]? {
    var ids: [MessageID] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
        let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count <= 2, let first = MessageID(bounds[0]), let last = MessageID(bounds[bounds.count - 1]),
              first <= last
        else { return nil }
        ids += (first.rawValue...last.rawValue).map { MessageID($0) }
    }
    return ids
}

/// Where a redirect leads, read the way the app reads it: the path, the other fields in order, and
/// the id lists `selected` and `undo` decoded into ids, so two Locations naming the same ids compare
/// equal however the ids are spelt.
struct Redirect: Equatable, CustomStringConvertible {
    var path: String
    /// Every field but `selected` and `undo`, as `[name, value]`, in order.
    var fields: [[String]]
    /// The ticked ids, ascending.
    var selected: [MessageID]
    /// The ids the Undo button would put back, ascending.
    var undo: [MessageID]

    static let idLists = ["selected", "undo"]

    /// The expected Location: `location` without id lists, and the ids it should name.
    init(_ location: String, selected: [MessageID] = [], undo: [MessageID] = []) throws {
        let request = try Request(method: .get, target: location)
        path = request.path
        fields = request.query.fields.map { [$0.name, $0.value] }
        self.selected = selected.sorted()
        self.undo = undo.sorted()
    }

    /// The Location a response redirects to. Each id list must be one field in the compact form
    /// the app writes: ascending, with every run of consecutive ids written as one range.
    init(location: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let location = try #require(location, sourceLocation: sourceLocation)
        let request = try Request(method: .get, target: location)
        path = request.path
        fields = request.query.fields.filter { !Self.idLists.contains($0.name) }.map { [$0.name, $0.value] }
        var lists: [String: [MessageID]] = [:]
        for name in Self.idLists {
            let values = request.query.all(name)
            guard !values.isEmpty else { continue }
            #expect(values.count == 1, "\(name) should be one field in \(location)", sourceLocation: sourceLocation)
            for value in values {
                let ids = try #require(decodeIDList(value), "\(name)=\(value) is not an id list in \(location)",
                                       sourceLocation: sourceLocation)
                #expect(encodeIDList(ids) == value, "\(name)=\(value) is not compact in \(location)",
                        sourceLocation: sourceLocation)
                lists[name, default: []] += ids
            }
            #expect(!location.contains("%2C"), "the commas of \(location) are escaped", sourceLocation: sourceLocation)
        }
        selected = lists["selected", default: []].sorted()
        undo = lists["undo", default: []].sorted()
    }

    var description: String {
        var query = fields.map { $0.joined(separator: "=") }
        if !selected.isEmpty { query.append("selected: \(selected.map(\.rawValue))") }
        if !undo.isEmpty { query.append("undo: \(undo.map(\.rawValue))") }
        return path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}

/// The compact spelling of `ids`: ascending, each run of consecutive ids as `first-last`.
func encodeIDList(_ ids: [MessageID]) -> String {
    var runs: [(first: Int64, last: Int64)] = []
    for id in Set(ids.map(\.rawValue)).sorted() {
        if let last = runs.last?.last, id == last + 1 { runs[runs.count - 1].last = id } else { runs.append((id, id)) }
    }
    return runs.map { $0.first == $0.last ? "\($0.first)" : "\($0.first)-\($0.last)" }.joined(separator: ",")
}

extension Response {
    /// Where this response redirects, with its id lists decoded.
    func redirect(sourceLocation: SourceLocation = #_sourceLocation) throws -> Redirect {
        try Redirect(location: location, sourceLocation: sourceLocation)
    }
}

extension MailroomApp {
    /// Mails `raw` through the service as the SMTP door does, and returns once it is stored:
    /// the ids of its copies.
    func receiveMail(_ raw: [UInt8], from sender: String, to recipients: [String], peer: String) throws(ServiceError) -> [MessageID] {
        let stored = DispatchSemaphore(value: 0)
        let outcome = StoredOutcome()
        service.receiveMail(raw, from: sender, to: recipients, peer: peer) { result in
            outcome.set(result)
            stored.signal()
        }
        stored.wait()
        guard let result = outcome.get() else { throw .unavailable("The message was not stored.") }
        return try result.get()
    }
}

/// One delivery's outcome, handed from the committing thread to the waiting test.
private final class StoredOutcome: Sendable {
    private let value = Mutex<Result<[MessageID], ServiceError>?>(nil)
    func set(_ result: Result<[MessageID], ServiceError>) { value.withLock { $0 = result } }
    func get() -> Result<[MessageID], ServiceError>? { value.withLock { $0 } }
}
