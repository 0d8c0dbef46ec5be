import HTTP
import MailroomCore
import MailroomService

/// Mailpit's tag calls over Mailroom's tags: names cleaned as Mailpit cleans them, one tag
/// whatever the case.
extension MailpitApp {
    /// `GET /api/v1/tags`: the names of the tags messages have, by name without regard to case.
    func tagNames() throws(HTTPError) -> Response {
        let tags = try MailroomApp.serving { () throws(ServiceError) in try service.tags() }
        return Self.json(.array(tags.map { .string($0.name) }))
    }

    /// `PUT /api/v1/tags` with `{"IDs": [...], "Tags": [...]}`: each message's tags become
    /// exactly these (`[]` takes them all off); without IDs, nothing changes.
    func setTags(_ request: Request) throws(HTTPError) -> Response {
        let members = try Self.body(request)
        let ids = try Self.ids(members)
        var names: [String] = []
        switch members.first(where: { $0.0 == "tags" })?.1 {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard case .string(let name) = value else { throw HTTPError(.badRequest, "“Tags” must be an array of names.") }
                names.append(name)
            }
        default: throw HTTPError(.badRequest, "“Tags” must be an array of names.")
        }
        guard !ids.isEmpty else { return Self.ok }
        _ = try MailroomApp.serving { () throws(ServiceError) in try service.setTags(names, of: ids) }
        return Self.ok
    }

    /// `PUT /api/v1/tags/{Tag}` with `{"Name": "new name"}`.
    func renameTag(_ name: Substring, _ request: Request) throws(HTTPError) -> Response {
        let members = try Self.body(request)
        guard case .string(let new)? = members.first(where: { $0.0 == "name" })?.1 else {
            throw HTTPError(.badRequest, "invalid tag name: the body needs “Name”")
        }
        do throws(ServiceError) {
            try service.renameTag(String(name), to: new)
        } catch .notFound {
            throw HTTPError(.badRequest, "tag not found: \(name)")
        } catch .badInput {
            throw HTTPError(.badRequest, "invalid tag name: \(new)")
        } catch .refused {
            throw HTTPError(.badRequest, "tag already exists: \(new)")
        } catch {
            throw HTTPError(error)
        }
        return Self.ok
    }

    /// `DELETE /api/v1/tags/{Tag}`: the tag comes off every message; the messages stay.
    func deleteTag(_ name: Substring) throws(HTTPError) -> Response {
        do throws(ServiceError) {
            try service.deleteTag(String(name))
        } catch .notFound {
            throw HTTPError(.badRequest, "tag not found: \(name)")
        } catch {
            throw HTTPError(error)
        }
        return Self.ok
    }
}
