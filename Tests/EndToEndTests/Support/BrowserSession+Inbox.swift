/// What a person does on the inbox page, in the browser's own terms: tick boxes, press a button,
/// fill in the Add form.
extension BrowserSession {
    /// On the edit form: ticks and unticks boxes (which the browser does locally, sending nothing),
    /// then presses the button named `name` with `value`, such as `("move-up", "5")`.
    @discardableResult
    func press(_ button: (String, String), ticking: [Int] = [], unticking: [Int] = []) throws -> Page {
        guard var form = page.form(id: "edit-form") else {
            throw TestFailure("no edit form on \(currentURL): not in edit mode")
        }
        for id in ticking { try form.tick(id) }
        for id in unticking { form.untick(id) }
        return try submit(form, pressing: button)
    }

    /// Opens the inbox and submits its Add form with what a person typed.
    @discardableResult
    func addMessage(subject: String, body: String = "", author: String = "") throws -> Page {
        if page.form(id: "add-form") == nil { try get("/mailboxes/inbox") }
        guard var form = page.form(id: "add-form") else { throw TestFailure("no add form on \(currentURL)") }
        try form.fill("subject", with: subject)
        try form.fill("body", with: body)
        try form.fill("author", with: author)
        return try submit(form)
    }
}
