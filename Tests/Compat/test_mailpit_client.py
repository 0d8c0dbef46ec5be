"""pytest-mailpit's client, as published on PyPI and used unchanged, against Mailroom's Mailpit
door: list, read, headers, attachment, raw, search, mark read, delete one, delete all."""
import smtplib
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
import requests
from pytest_mailpit import MailpitClient, build_query

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Browser"))
import mailroom_server  # noqa: E402


@pytest.fixture
def door():
    server = mailroom_server.start(smtp=True, port_flags=["--mailpit-port"])
    port = server.ports["--mailpit-port"]
    # The door's line follows the banner once its loops are listening.
    line = server.process.stdout.readline()
    assert f"Mailpit API on http://127.0.0.1:{port}/api/" in line, line
    server.mailpit = f"http://127.0.0.1:{port}/"
    yield server
    server.stop()


def send(server, subject, to="bob@example.com", tags=None, attachment=None, body="Your code is 123456"):
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = subject
    if tags:
        message["X-Tags"] = tags
    message.set_content(body)
    if attachment:
        message.add_attachment(attachment, maintype="text", subtype="plain", filename="note.txt")
    with smtplib.SMTP("127.0.0.1", server.smtp_port) as smtp:
        smtp.send_message(message)


def test_the_published_client_lists_reads_searches_marks_and_deletes(door):
    mailpit = MailpitClient(door.mailpit, wait_timeout=10)
    mailpit.delete_all()
    assert mailpit.messages().total == 0
    send(door, "Hello compat", attachment=b"hello attachment")
    send(door, "Other news", to="carol@example.com", body="Nothing to see")

    message = mailpit.wait_for_message(recipient="bob@example.com")
    page = mailpit.messages(limit=10)
    assert page.total == 2 and page.messages_count == 2
    assert [summary.subject for summary in page.messages] == ["Other news", "Hello compat"]
    assert mailpit.search(build_query(subject="Hello", sender="alice@example.com")).messages_count == 1
    assert mailpit.search("has:attachment").messages_count == 1

    message = mailpit.get_message(message.id)
    assert message.code() == "123456"
    assert mailpit.get_headers(message.id)["Subject"] == ["Hello compat"]
    note = message.attachment("note.txt")
    assert mailpit.get_attachment(note) == b"hello attachment"
    assert b"Subject: Hello compat" in mailpit.get_raw(message.id)

    # Reading it marked it read; the client can mark it unread again.
    assert mailpit.search("is:read").messages_count == 1
    mailpit.mark_read([message.id], read=False)
    assert mailpit.search("is:unread").messages_count == 2

    mailpit.delete_messages([message.id])
    assert [summary.subject for summary in mailpit.messages().messages] == ["Other news"]
    mailpit.delete_all()
    assert mailpit.messages().total == 0
    mailpit.close()


def test_deleted_mail_waits_in_mailrooms_trash(door):
    mailpit = MailpitClient(door.mailpit, wait_timeout=10)
    send(door, "Keep me safe")
    mailpit.wait_for_message(subject="Keep me safe")
    mailpit.delete_all()
    listing = requests.get(door.url("/api/v1/messages?mailbox=trash"), timeout=10).json()
    assert "Keep me safe" in [row["subject"] for row in listing["messages"]]
    mailpit.close()


def test_a_search_mailroom_cannot_run_is_refused_in_a_sentence(door):
    answer = requests.get(door.mailpit + "api/v1/search", params={"query": "larger:1mb"}, timeout=10)
    assert answer.status_code == 400
    assert "larger:" in answer.text


def test_the_published_client_reads_sets_and_waits_for_tags(door):
    mailpit = MailpitClient(door.mailpit, wait_timeout=10)
    send(door, "Tagged by header", tags="alpha, Beta")
    send(door, "Not tagged")
    message = mailpit.wait_for_message(tag="alpha")
    assert message.subject == "Tagged by header"
    assert set(message.tags) == {"alpha", "Beta"}
    assert mailpit.messages().tags == ("alpha", "Beta")
    assert mailpit.search("tag:beta").messages_count == 1

    other = mailpit.wait_for_message(subject="Not tagged")
    mailpit.set_tags([message.id, other.id], ["gamma"])
    assert mailpit.messages().tags == ("gamma",)
    assert mailpit.search("tag:gamma").messages_count == 2
    assert mailpit.search("tag:alpha").messages_count == 0
    mailpit.close()
