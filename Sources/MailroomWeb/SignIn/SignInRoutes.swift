import HTML
import HTTP

extension MailroomApp {
    func showSignIn(_ request: Request, status: Status = .ok, problem: String? = nil) -> Response {
        let next = Paths.local(request.query["next"] ?? (try? request.form())?["next"])
        let page = Layout.document(title: "Sign In — Mailroom", bodyClass: "signin-page") {
            main(.id("content")) {
                section(.class("confirmation signin")) {
                    h1 { "Mailroom" }
                    p { "This Mailroom is protected by a password." }
                    postForm(Paths.signIn(), token: token, .class("compose open"), .id("signin-form")) {
                        input(.type(.hidden), .name("next"), .value(next))
                        if let problem {
                            div(.class("form-errors"), .role("alert"), .id("form-errors")) { p { problem } }
                        }
                        label(.for("password")) { "Password" }
                        input(.type(.password), .id("password"), .name("password"), .autocomplete("current-password"),
                              .autofocus(), .aria("invalid", problem == nil ? "false" : "true"))
                        button(.type(.submit), .class("button primary")) { "Sign In" }
                    }
                }
            }
        }
        return Response(status: status, html: page)
    }

    func signInPost(_ request: Request) throws(HTTPError) -> Response {
        guard let signIn else { return .seeOther(Paths.inbox) }
        let form = try request.form()
        switch signIn.attempt(form["password"] ?? "", from: request.peer, now: now()) {
        case .accepted(let session):
            var response = Response.seeOther(Paths.local(form["next"]))
            response.headers.add("Set-Cookie", signIn.setCookie(session))
            return response
        case .refused:
            return showSignIn(request, status: .forbidden, problem: "That password is not right.")
        case .locked(let seconds):
            var response = showSignIn(
                request, status: Status(code: 429, reason: "Too Many Requests"),
                problem: "Too many wrong passwords. Try again in \(seconds) second\(seconds == 1 ? "" : "s").")
            response.headers.add("Retry-After", String(seconds))
            return response
        }
    }

    func signOutPost(_ request: Request) throws(HTTPError) -> Response {
        signIn?.signOut(request)
        var response = Response.seeOther(Paths.signIn())
        response.headers.add("Set-Cookie", SignIn.clearCookie)
        return response
    }
}
