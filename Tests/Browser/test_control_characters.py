"""Mail full of control characters (cron's colour escapes, a NUL, a binary file sent as text)
shows them as visible symbols: the message page and the list both pass the Nu Html Checker."""
import json
import re
import smtplib
import subprocess
from pathlib import Path

import pytest

import gallery
import mailroom_server

VNU = mailroom_server.TOOLS / "vnu.jar"

# What cron mails when a job that colours its output fails, with a few more controls the
# page must survive: NUL, BEL, backspace, form feed, vertical tab, DEL and the C1 CSI (U+009B).
# The NULs come last: the mail parser reads a part's text as a C string, so nothing after a NUL
# reaches the page at all (a separate fault, in MailroomMail).
SUBJECT = "Cron <root@nas> \x1b[31mFAILED\x1b[0m backup\x07\x7f\x00"
BODY = ("\x1b[1;31merror:\x1b[0m disk \x1b[33mfull\x1b[0m\r\n"
        "bell:\x07 backspace:\x08 formfeed:\x0c vtab:\x0b del:\x7f csi:\u009b2J\r\n"
        "binary: \x01\x02\x03\x1f\x10\xff\x00\x00\r\n")
RAW = (f"From: Cron Daemon <root@nas.test>\r\nTo: ops@office.test\r\nSubject: {SUBJECT}\r\n"
       "Date: Tue, 01 Dec 2026 09:30:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n"
       "Content-Transfer-Encoding: 8bit\r\n\r\n" + BODY).encode("utf-8", "surrogateescape")

# No raw control but tab, LF and CR may be in a page; nor a C1 control.
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The message page and the Inbox for a server that was mailed RAW, as HTML text."""
    server = mailroom_server.start(smtp=True)
    try:
        with smtplib.SMTP("127.0.0.1", server.smtp_port) as smtp:
            smtp.sendmail("root@nas.test", ["ops@office.test"], RAW)
        client = gallery.Client(server)
        ids = gallery.message_ids(client)
        assert len(ids) == 1, client.html
        inbox = client.html
        message = client.get(f"/messages/{ids[0]}")
        assert client.status == 200
    finally:
        server.stop()
    return {"inbox": inbox, "message": message}


@pytest.fixture(scope="module")
def checked(pages, tmp_path_factory):
    """The checker's errors, by page."""
    folder = tmp_path_factory.mktemp("controls")
    files = []
    for name, html in pages.items():
        path = folder / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        files.append(path)
    run = subprocess.run(["java", "-jar", str(VNU), "--format", "json", *map(str, files)],
                         capture_output=True, text=True, timeout=300)
    messages = json.loads(run.stderr or run.stdout)["messages"]
    errors = {path.stem: [] for path in files}
    for message in messages:
        if message["type"] in ("error", "non-document-error") or message.get("subType") == "fatal":
            errors.setdefault(Path(message.get("url", "?").removeprefix("file:")).stem, []).append(message)
    return errors


@pytest.mark.parametrize("name", ["message", "inbox"])
def test_the_page_is_valid_html(checked, name):
    found = checked[name]
    assert not found, "\n".join(f'{m.get("lastLine", "?")}: {m["message"]} {m.get("extract", "")!r}' for m in found)


@pytest.mark.parametrize("name", ["message", "inbox"])
def test_no_raw_control_character_reaches_the_page(pages, name):
    assert not FORBIDDEN.findall(pages[name]), sorted(set(FORBIDDEN.findall(pages[name])))


@pytest.mark.parametrize("name", ["message", "inbox"])
def test_the_subject_shows_its_escapes_as_symbols(pages, name):
    assert "\u241b[31mFAILED\u241b[0m backup\u2407\u2421" in pages[name]


def test_the_message_text_shows_every_control_as_a_symbol(pages):
    text = pages["message"]
    assert "\u241b[1;31merror:\u241b[0m disk \u241b[33mfull\u241b[0m" in text
    assert "bell:\u2407 backspace:\u2408 formfeed:\u240c vtab:\u240b del:\u2421 csi:\ufffd2J" in text
    assert "binary: \u2401\u2402\u2403\u241f\u2410" in text


def test_the_list_preview_shows_symbols_too(pages):
    assert "\u241b[1;31merror:\u241b[0m disk" in pages["inbox"]
