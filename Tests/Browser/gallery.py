"""Every state of every page, made through real form posts, for the accessibility, markup and
screenshot checks.

`seed(server)` fills a fresh server (started with `PAGE_SIZE` rows a page, so the Inbox has two) with a small, realistic set of messages and mailboxes (and, when it takes mail, two mails sent over SMTP, whose rows show recipient, size and paperclip on the older page) by
submitting the pages' own forms (each carries its `csrf` token), and returns the states in order:
name, path and the status the page answers with. A state whose page is the answer to a post
(a refused form) names the form to submit instead of a path.
"""
import base64
import http.cookiejar
import re
import smtplib
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from email.message import EmailMessage
from html.parser import HTMLParser


@dataclass
class State:
    name: str
    path: str
    status: int = 200
    # For a page that answers a post: the form's id and the fields typed into it.
    form: str | None = None
    typed: dict = field(default_factory=dict)
    # A second server (the one with a password) serves this state.
    signin: bool = False


class Forms(HTMLParser):
    """The forms of a page: action, fields as a browser would submit them, and submit buttons."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._form = None
        self._textarea = None
        self._select = None

    def handle_starttag(self, tag, attrs):
        a = {key: (value if value is not None else "") for key, value in attrs}
        if tag == "form":
            self._form = {"id": a.get("id"), "action": a.get("action", ""), "fields": [], "buttons": []}
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self._form["fields"].append((a["name"], a.get("value", "on")))
            elif kind == "submit":
                self._form["buttons"].append((a.get("name"), a.get("value", "")))
            elif "name" in a:
                self._form["fields"].append((a["name"], a.get("value", "")))
        elif tag == "button" and a.get("type", "submit") == "submit":
            self._form["buttons"].append((a.get("name"), a.get("value", "")))
        elif tag == "textarea":
            self._textarea = [a["name"], ""]
            self._form["fields"].append(self._textarea)
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select:
            if not any(name == self._select for name, _ in self._form["fields"]) or "selected" in a:
                self._form["fields"] = [f for f in self._form["fields"] if f[0] != self._select]
                self._form["fields"].append((self._select, a.get("value", "")))

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data


class Client:
    """A cookie-keeping HTTP client that follows redirects, as a browser does."""

    def __init__(self, server):
        self.server = server
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.path = "/"
        self.status = 0
        self.html = ""

    def _open(self, request):
        try:
            response = self.opener.open(request, timeout=10)
        except urllib.error.HTTPError as error:
            response = error
        with response:
            self.status = response.status
            self.html = response.read().decode("utf-8")
            url = urllib.parse.urlsplit(response.geturl())
            self.path = url.path + (f"?{url.query}" if url.query else "")
        return self.html

    def get(self, path):
        return self._open(urllib.request.Request(self.server.url(path)))

    def submit(self, form_id=None, button=None, typed=None, ticked=()):
        """Submits a form of the current page like a browser: its fields, `typed` over them,
        the checkboxes whose values are in `ticked` ticked as well, and `button` (name, value)
        as the button pressed (or the form's first). `form_id` may be omitted when `button`
        picks the form."""
        parser = Forms()
        parser.feed(self.html)
        for form in parser.forms:
            if form_id is not None and form["id"] != form_id:
                continue
            if button is not None and tuple(button) not in form["buttons"]:
                continue
            break
        else:
            raise AssertionError(f"no form {form_id!r} with button {button!r} on {self.path}")
        typed = dict(typed or {})
        fields = [(name, typed.pop(name, value)) for name, value in form["fields"]]
        fields += list(typed.items())
        fields += [("selected", value) for value in ticked]
        pressed = button or (form["buttons"][0] if form["buttons"] else None)
        if pressed and pressed[0]:
            fields.append(pressed)
        body = urllib.parse.urlencode(fields).encode()
        action = urllib.parse.urljoin(self.server.url(self.path), form["action"])
        return self._open(urllib.request.Request(action, data=body, method="POST"))


# Oldest first: each new message goes on top. (author, subject, body, flagged, read)
MESSAGES = [
    ("Mailroom", "Welcome to the shared inbox",
     "Everyone on the network reads and posts here.\n\nPress Edit to select messages, then "
     "archive, flag or delete them together. Deleted messages wait in Trash.", False, True),
    ("Facilities", "Bike room closed on Friday",
     "The bike room will be closed all day Friday while the new racks go in. Please park in the "
     "courtyard instead.", False, True),
    ("Priya", "Quarterly report draft — comments by Thursday",
     "Here is the draft of the quarterly report. Please leave comments by Thursday so I can send "
     "it on Friday morning. Section three still needs the new figures from the warehouse.", True, True),
    ("Tom", "Lunch order", "Thai place again? Reply by 11:30 with what you would like.", False, False),
    ("", "Printer on the second floor is out of toner", "", False, False),
    ("Ana Lucía Fernández-Castellanos", "Re: Re: Re: Moving the weekly planning meeting to "
     "Tuesday afternoons from next month onwards",
     "Tuesday at three works for everyone who replied. I have booked the big room for the rest of "
     "the year and sent new invitations.", True, False),
    ("Sam", "Parcel for Jordan at reception", "A large parcel came for Jordan this morning.", False, False),
]


def add_message(client, author, subject, body):
    client.get("/mailboxes/inbox")
    client.submit("add-form", typed={"subject": subject, "body": body, "author": author})
    assert client.status == 200, f"adding {subject!r} answered {client.status}"


def message_ids(client, box="inbox"):
    """The ids of a mailbox's rows, top first."""
    client.get(f"/mailboxes/{box}")
    return [int(match) for match in re.findall(r'<li class="row[^"]*" id="message-\d+" data-id="(\d+)"', client.html)]


# Rows a page for the gallery's server: the Inbox then spans two pages.
PAGE_SIZE = 10


# A mail as a scanner and a newsletter send them: text and HTML with an inline image, and a PDF.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEnQH+4o0cCQAAAABJRU5ErkJggg==")


def rich_mail():
    message = EmailMessage()
    message["From"] = "Office Scanner <scanner@office.test>"
    message["To"] = "Front Desk <desk@office.test>"
    message["Cc"] = "facilities@office.test"
    message["Subject"] = "Scanned: floor plan for the move"
    message["Date"] = "Tue, 01 Dec 2026 09:30:00 +0000"
    message["Message-ID"] = "<gallery-scan@office.test>"
    message.set_content("The floor plan is attached as a PDF.\n\nPages: 2\nResolution: 300 dpi\n")
    message.add_alternative(
        '<p>The floor plan is attached as a PDF.</p><p><img src="cid:logo@office.test" alt="Office logo"></p>',
        subtype="html")
    message.get_payload()[1].add_related(PIXEL, "image", "png", cid="<logo@office.test>", filename="logo.png")
    message.add_attachment(b"%PDF-1.4\n% floor plan\n" * 40, maintype="application", subtype="pdf",
                           filename="floor-plan.pdf")
    return message


# A newsletter that shows a picture from the web: its page says the picture was blocked. The
# address is on loopback (a closed port), so showing it asks nothing of the outside world.
def remote_mail():
    message = EmailMessage()
    message["From"] = "Building News <news@building.test>"
    message["To"] = "desk@office.test"
    message["Subject"] = "This month in the building"
    message["Date"] = "Tue, 01 Dec 2026 10:00:00 +0000"
    message.set_content("New racks in the bike room, and the roof garden opens in spring.\n")
    message.add_alternative(
        '<p><img src="http://127.0.0.1:9/banner.png" alt="The roof garden" width="300" height="100"></p>'
        '<p>New racks in the bike room, and the roof garden opens in spring.</p>', subtype="html")
    return message


def seed(server):
    """Fills a fresh server and returns its states (see the module's summary)."""
    client = Client(server)
    mail = None
    if server.smtp_port:
        with smtplib.SMTP("127.0.0.1", server.smtp_port) as smtp:
            reply = smtp.send_message(rich_mail(), "scanner@office.test", ["desk@office.test"])
            assert reply == {}, reply
            reply = smtp.send_message(remote_mail(), "news@building.test", ["desk@office.test"])
            assert reply == {}, reply
        remote, mail = message_ids(client)[:2]
    for index in range(6):
        add_message(client, "Facilities", f"Reminder {index + 1}: fire drill on the {index + 3}rd floor", "")
    for author, subject, body, _, _ in MESSAGES:
        add_message(client, author, subject, body)
    ids = message_ids(client)                      # newest first
    by_subject = dict(zip(reversed([m[1] for m in MESSAGES]), ids))
    for author, subject, body, flagged, read in MESSAGES:
        message = by_subject[subject]
        client.get(f"/messages/{message}" + ("" if read else "?keep=unread"))
        if flagged:
            client.submit(button=("action", "flag"))
    # Two extra messages go to Trash through the list's own Delete, which offers Undo.
    add_message(client, "Old thread", "Out of office until Monday", "Auto-reply.")
    add_message(client, "Newsletter", "This week in the building", "Nothing much happened.")
    doomed = message_ids(client)[:2]
    # One by the row's own Delete and its confirmation (as a swipe does)...
    client.get(f"/mailboxes/inbox?mode=transient&row={doomed[0]}")
    client.submit(button=("delete", str(doomed[0])))
    assert client.status == 200 and "undo" in client.path, client.path
    undo_path = client.path
    # ...and one from edit mode, which stays in edit mode.
    client.get("/mailboxes/inbox?mode=active")
    client.submit("edit-form", button=("action", "delete"), ticked=[str(doomed[1])])
    assert client.status == 200 and "undo" in client.path, client.path
    undo_editing_path = client.path
    # A mailbox of one's own, so the Mailboxes page shows its rename form.
    client.get("/mailboxes")
    client.submit("create-mailbox", typed={"name": "Projects"})
    projects = next(int(slug) for slug in re.findall(r'data-mailbox="(\d+)"', client.html))

    ids = message_ids(client)
    client.get("/mailboxes/inbox?mode=active")
    client.submit("edit-form", button=("action", "select-all"))
    select_all_path = client.path
    everything = re.search(r'href="([^"]+)" id="select-all-everything"', client.html)
    assert everything, "Select All on a paged list offers the whole list"
    all_selected_path = everything.group(1).replace("&amp;", "&")
    client.get("/mailboxes/inbox")
    older = re.search(r'id="older" rel="next" href="([^"]+)"', client.html)
    assert older, "the Inbox spans two pages"
    older_path = older.group(1).replace("&amp;", "&")
    flagged = by_subject[MESSAGES[2][1]]
    return [
        State("inbox", "/mailboxes/inbox"),
        State("inbox-transient", f"/mailboxes/inbox?mode=transient&row={ids[1]}"),
        State("inbox-active", f"/mailboxes/inbox?mode=active&selected={ids[1]},{ids[3]}"),
        State("inbox-select-all", select_all_path),
        State("inbox-all-selected", all_selected_path),
        State("inbox-older", older_path),
        State("inbox-search", "/mailboxes/inbox?q=printer"),
        State("inbox-search-active", "/mailboxes/inbox?q=from%3Afacilities&mode=active"),
        State("inbox-no-results", "/mailboxes/inbox?q=%22no+such+words%22"),
        State("inbox-search-problem", "/mailboxes/inbox?q=is%3Aeverything"),
        State("inbox-undo", undo_path),
        State("inbox-active-undo", undo_editing_path),
        State("inbox-form-error", "/mailboxes/inbox", status=422, form="add-form",
              typed={"subject": "   ", "author": "Sam"}),
        State("archive-empty", "/mailboxes/archive"),
        State("trash", "/mailboxes/trash"),
        State("trash-active", f"/mailboxes/trash?mode=active&selected={doomed[0]}"),
        State("message", f"/messages/{flagged}"),
        State("message-form-error", f"/messages/{flagged}", status=422, form="save-form",
              typed={"subject": ""}),
        State("mailboxes", "/mailboxes"),
        State("mailboxes-form-error", "/mailboxes", status=422, form="create-mailbox",
              typed={"name": "Inbox"}),
        State("confirm-empty-trash", "/mailboxes/trash/empty"),
        State("confirm-delete-mailbox", f"/mailboxes/{projects}/delete"),
        State("error-404", "/no-such-page", status=404),
        State("signin", "/signin", signin=True),
    ] + ([] if mail is None else [
        State("mail", f"/messages/{mail}?keep=unread"),
        State("mail-text", f"/messages/{mail}?keep=unread&view=text"),
        State("mail-html", f"/messages/{mail}?keep=unread&view=html"),
        State("mail-remote", f"/messages/{remote}?keep=unread"),
        State("mail-remote-shown", f"/messages/{remote}?keep=unread&view=html&images=remote"),
        State("mail-headers", f"/messages/{mail}?keep=unread&view=headers"),
        State("mailboxes-address-error", "/mailboxes", status=422, form="route-inbox",
              typed={"addresses": "desk@office.test, not-an-address"}),
    ])


def fetch(client, state):
    """The HTML of one state, fetched the way a browser would reach it."""
    client.get(state.path)
    if state.form:
        client.submit(state.form, typed=state.typed)
    assert client.status == state.status, f"{state.name}: {client.status} at {client.path}"
    return client.html
