"""The `mailhog` client, as published on PyPI and used unchanged, against Mailroom's MailHog door:
list, search, read one, download, attachment part, delete one, delete all. The client has no call
for reading one message or its parts, so those use plain HTTP, as its users do."""
import smtplib
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
import requests
from mailhog import Mailhog

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Browser"))
import mailroom_server  # noqa: E402


@pytest.fixture
def door():
    server = mailroom_server.start(smtp=True, port_flags=["--mailhog-port"])
    port = server.ports["--mailhog-port"]
    line = server.process.stdout.readline()
    assert f"MailHog API on http://127.0.0.1:{port}/api/" in line, line
    server.mailhog_port = port
    yield server
    server.stop()


def send(server, subject, sender="alice@example.com", to="bob@example.com", attachment=None):
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message.set_content("Your code is 123456")
    if attachment:
        message.add_attachment(attachment, maintype="text", subtype="plain", filename="note.txt")
    with smtplib.SMTP("127.0.0.1", server.smtp_port) as smtp:
        smtp.send_message(message)


def test_the_published_client_lists_searches_reads_and_deletes(door):
    mailhog = Mailhog(host="127.0.0.1", port=door.mailhog_port)
    base = f"http://127.0.0.1:{door.mailhog_port}"
    mailhog.delete_all()
    assert mailhog.messages().total == 0
    send(door, "Hello compat", attachment=b"hello attachment")
    send(door, "Other news", sender="carol@example.com", to="dave@example.com")

    page = mailhog.messages(start=0, limit=10)
    assert page.total == 2 and page.count == 2 and len(page.items) == 2
    item = next(message for message in page.items if message.get_subject() == "Hello compat")
    assert item.get_sender() == "alice@example.com"
    assert item.get_recipients() == ["bob@example.com"]
    assert mailhog.search("bob@example.com", kind="to").total == 1
    assert mailhog.search("carol@example.com", kind="from").total == 1
    assert mailhog.search("compat").total == 1
    assert mailhog.search("nobody@example.com", kind="to").total == 0

    one = requests.get(f"{base}/api/v1/messages/{item.id}", timeout=10).json()
    assert one["Content"]["Headers"]["Subject"] == ["Hello compat"]
    raw = requests.get(f"{base}/api/v1/messages/{item.id}/download", timeout=10)
    assert raw.ok and b"Subject: Hello compat" in raw.content
    parts = one["MIME"]["Parts"]
    index = next(i for i, part in enumerate(parts) if "note.txt" in str(part["Headers"].get("Content-Disposition", "")))
    part = requests.get(f"{base}/api/v1/messages/{item.id}/mime/part/{index}/download", timeout=10)
    assert part.content == b"hello attachment"

    mailhog.delete(item)
    assert [message.get_subject() for message in mailhog.messages().items] == ["Other news"]
    mailhog.delete_all()
    assert mailhog.messages().total == 0


def test_a_search_of_an_unknown_kind_is_a_400(door):
    answer = requests.get(f"http://127.0.0.1:{door.mailhog_port}/api/v2/search",
                          params={"kind": "subject", "query": "x"}, timeout=10)
    assert answer.status_code == 400
