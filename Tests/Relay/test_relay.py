"""Mail out through a real relay: Postfix's smtp-sink on a free loopback port, dumping each
message it takes to a file. Release by the API, Forward by the web form (no script), relay on
arrival, and the queue's answers to a 5xx, a 4xx, a connection lost after the end of the data,
and kill -9: each checked on the sink's files and on the message page.
"""
import glob
import json
import os
import re
import signal
import smtplib
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from email.message import EmailMessage
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Browser"))
import mailroom_server  # noqa: E402

SMTP_SINK = "/usr/sbin/smtp-sink"
ALLOW = [r"--relay-allow-to", r".*@vendor\.test"]


def until_commit(server, condition, what, timeout=20):
    """Re-checks `condition` at each of Mailroom's commits (its /events stream), until it holds:
    a recipient's state is committed once the relay has answered, so the sink's file is whole by then."""
    request = urllib.request.Request(server.url("/events"), headers={"Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=timeout) as stream:
        while True:
            value = condition()
            if value:
                return value
            if not stream.readline():
                raise AssertionError(f"the event stream ended before {what}")


class Sink:
    """smtp-sink on a free port; each message it takes becomes one file in `folder`. Run with
    -vvv, it says on stderr when its socket is being watched (after listen and its change of
    user), which is what the start waits for; a thread keeps reading what it says after."""

    def __init__(self, *options):
        self.folder = tempfile.mkdtemp(prefix="mailroom-sink-")
        self.port = mailroom_server.free_port()
        self.process = subprocess.Popen(
            [SMTP_SINK, "-vvv", "-u", "root", "-d", os.path.join(self.folder, "%M."), *options, f"127.0.0.1:{self.port}", "64"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()

        def read():
            for line in self.process.stderr:
                if "event_enable_read" in line:
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(20):
            raise AssertionError(f"smtp-sink did not start listening (exit status {self.process.poll()})")

    def files(self):
        return sorted(glob.glob(os.path.join(self.folder, "*")))

    def taken(self, needle):
        """The files the sink has finished (they end with the empty line it adds) that hold `needle`."""
        found = []
        for path in self.files():
            content = Path(path).read_bytes()
            if content.endswith(b"\n\n") and needle in content:
                found.append(path)
        return found

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def mailroom(sink_port, *extra, db=None):
    flags = ["--relay-host", f"127.0.0.1:{sink_port}", "--relay-tls", "none", *ALLOW, *extra]
    if db:
        flags += ["--db", db]
    return mailroom_server.start(smtp=True, extra=flags)


def send(server, subject, to="desk@example.test"):
    message = EmailMessage()
    message["From"] = "Monitor <monitor@example.test>"
    message["To"] = to
    message["Subject"] = subject
    message.set_content("Disk /srv is 91% full.\n.a line that starts with a dot\n")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=10) as client:
        client.send_message(message)
    found = get_json(server, "/api/v1/wait?" + urllib.parse.urlencode({"q": f'subject:"{subject}"', "timeout": "10"}))
    return found["id"]


def get_json(server, path):
    with urllib.request.urlopen(server.url(path), timeout=15) as answer:
        return json.load(answer)


def get_text(server, path):
    with urllib.request.urlopen(server.url(path), timeout=15) as answer:
        return answer.read().decode()


def post_json(server, path, body):
    request = urllib.request.Request(server.url(path), data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def release(server, message_id, *addresses):
    return post_json(server, "/api/v1/messages/release", {"ids": [message_id], "to": list(addresses)})


def history(server, message_id):
    """The Sent on section of the message's page, as text."""
    page = get_text(server, f"/messages/{message_id}?keep=unread")
    match = re.search(r'<section class="outbound".*?</section>', page, re.S)
    return re.sub(r"<[^>]+>", "", match.group(0)) if match else ""


def released_killed_and_restarted(sink, subject, state):
    """Releases a new message to `sink`, kills Mailroom with SIGKILL once the message's page shows
    `state`, and starts it again on the same file with a new sink that takes everything:
    the message's id, the new sink and the restarted server."""
    db = os.path.join(tempfile.mkdtemp(prefix="mailroom-relay-"), "mailroom.sqlite")
    server = mailroom(sink.port, db=db)
    message_id = send(server, subject)
    release(server, message_id, "ops@vendor.test")
    until_commit(server, lambda: state in history(server, message_id), f"the page to say {state}")
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    server.process.stdout.close()
    sink.stop()
    taking = Sink()
    return message_id, taking, mailroom(taking.port, db=db)


def dumped_message(path):
    """What the sink took, less the lines it writes on top (up to its three-line Received)."""
    lines = Path(path).read_bytes().split(b"\n")
    end = next(i for i, line in enumerate(lines) if line.startswith(b"Received: from ")) + 3
    header = b"\n".join(lines[:end])
    return header, b"\n".join(lines[end:])


def test_a_release_reaches_the_relay_byte_for_byte_under_one_received_line():
    sink = Sink()
    server = mailroom(sink.port)
    try:
        message_id = send(server, "Disk 91% full")
        status, answer = release(server, message_id, "ops@vendor.test")
        assert (status, answer["queued"]) == (200, 1)
        files = until_commit(server, lambda: sink.taken(b"Subject: Disk 91% full"), "the sink to take the message")
        header, body = dumped_message(files[0])
        assert b"X-Rcpt-Args: <ops@vendor.test>" in header
        assert b"X-Mail-Args: <monitor@example.test>" in header
        raw = urllib.request.urlopen(server.url(f"/api/v1/messages/{message_id}/raw"), timeout=15).read()
        received, rest = body.split(b"\n", 2)[:2], body.split(b"\n", 2)[2]
        assert received[0].startswith(b"Received: by ") and received[0].endswith(f"id {message_id};".encode())
        # The sink writes lines with LF; the message went out exactly as it arrived, dot and all.
        assert rest.rstrip(b"\n") == raw.replace(b"\r\n", b"\n").rstrip(b"\n")
        assert b"\n.a line that starts with a dot" in rest
        until_commit(server, lambda: "released, sent" in history(server, message_id), "the page to say sent")
    finally:
        server.stop()
        sink.stop()


def test_an_address_the_allow_list_does_not_name_is_refused_and_nothing_goes_out():
    sink = Sink()
    server = mailroom(sink.port)
    try:
        message_id = send(server, "Secret")
        status, answer = release(server, message_id, "someone@elsewhere.test")
        assert status == 400 and "not an address Mailroom may send to" in answer["error"]
        assert history(server, message_id) == ""
        assert sink.files() == []
    finally:
        server.stop()
        sink.stop()


def test_forward_by_the_web_form_without_a_script():
    sink = Sink()
    server = mailroom(sink.port)
    try:
        message_id = send(server, "Printer jam")
        form = get_text(server, f"/messages/{message_id}/forward")
        token = re.search(r'name="csrf" value="([^"]+)"', form)
        fields = {"to": "vendor@vendor.test"}
        if token:
            fields["csrf"] = token.group(1)
        request = urllib.request.Request(
            server.url(f"/messages/{message_id}/forward"), data=urllib.parse.urlencode(fields).encode(), method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": server.url("").rstrip("/")})
        with urllib.request.urlopen(request, timeout=15) as answer:
            assert "queued to go out to vendor@vendor.test" in answer.read().decode()
        until_commit(server, lambda: sink.taken(b"Subject: Printer jam"), "the forwarded message")
        until_commit(server, lambda: "forwarded, sent" in history(server, message_id), "the page to say forwarded")
    finally:
        server.stop()
        sink.stop()


def test_relay_matching_passes_on_only_what_its_search_finds():
    sink = Sink()
    server = mailroom(sink.port, "--relay-matching", "subject:urgent")
    try:
        calm = send(server, "Calm weekly report", to="team@vendor.test")
        urgent = send(server, "Urgent: backup failed", to="team@vendor.test")
        until_commit(server, lambda: sink.taken(b"Subject: Urgent: backup failed"), "the relayed message")
        until_commit(server, lambda: "relayed on arrival, sent" in history(server, urgent), "the page to say relayed")
        assert history(server, calm) == ""
        assert len(sink.files()) == 1
        # The list marks the row that was passed on, and only that one.
        page = get_text(server, "/mailboxes/inbox")
        rows = {}
        for match in re.finditer(r'id="message-(\d+)"(.*?)</li>', page, re.S):
            rows[int(match.group(1))] = match.group(2)
        assert 'class="relayed"' in rows[urgent]
        assert 'class="relayed"' not in rows[calm]
    finally:
        server.stop()
        sink.stop()


@pytest.mark.parametrize("sink_option, shown_text", [
    # smtp-sink refuses the end of the data with a 5xx: final, with the relay's words.
    ("-f", "500 5.3.0"),
    # smtp-sink hangs up instead of answering the end: the relay may have it, so it fails as
    # in doubt rather than going a second time.
    ("-q", "In doubt"),
])
def test_what_the_relay_says_to_the_end_of_the_data_is_shown_as_a_failure(sink_option, shown_text):
    sink = Sink(sink_option, ".")
    server = mailroom(sink.port)
    try:
        message_id = send(server, "Answered at the end")
        release(server, message_id, "ops@vendor.test")
        shown = until_commit(server, lambda: (lambda text: text if "failed" in text else None)(history(server, message_id)), "a failure")
        assert shown_text in shown
    finally:
        server.stop()
        sink.stop()


def test_a_4xx_is_deferred_survives_kill_9_and_is_sent_at_once_after_a_restart():
    message_id, taking, restarted = released_killed_and_restarted(Sink("-r", "."), "Try again", "deferred")
    try:
        until_commit(restarted, lambda: taking.taken(b"Subject: Try again"), "the retry after the restart")
        until_commit(restarted, lambda: "released, sent" in history(restarted, message_id), "the page to say sent")
        assert len(taking.files()) == 1
    finally:
        restarted.stop()
        taking.stop()


def test_kill_9_while_the_relay_answers_the_end_of_the_data_sends_no_second_copy():
    """The relay holds its answer to the final dot for 30 s; Mailroom is killed meanwhile, with
    the row committed as being sent. After a restart the row fails as in doubt and is not sent
    again: a message released next goes out alone."""
    message_id, taking, restarted = released_killed_and_restarted(Sink("-W", ".:30"), "Half way", "being sent")
    try:
        shown = until_commit(restarted, lambda: (lambda text: text if "failed" in text else None)(history(restarted, message_id)),
                             "the row to fail as in doubt")
        assert "In doubt" in shown
        other = send(restarted, "Next one")
        release(restarted, other, "ops@vendor.test")
        until_commit(restarted, lambda: taking.taken(b"Subject: Next one"), "the next release")
        assert len(taking.files()) == 1
        assert not taking.taken(b"Subject: Half way")
    finally:
        restarted.stop()
        taking.stop()


def test_relay_all_passes_each_message_on_byte_for_byte_to_each_allowed_recipient():
    """Several messages in a row (one kept connection, commands pipelined: smtp-sink offers
    PIPELINING), each with a recipient the allow-list names and one it does not."""
    sink = Sink()
    server = mailroom(sink.port, "--relay-all")
    try:
        ids = [send(server, f"Nightly run {n}", to=f"team@vendor.test, boss@elsewhere.test") for n in range(5)]
        for n, message_id in enumerate(ids):
            files = until_commit(server, lambda: sink.taken(f"Subject: Nightly run {n}\n".encode()), f"message {n} at the sink")
            header, body = dumped_message(files[0])
            assert b"X-Rcpt-Args: <team@vendor.test>" in header and b"elsewhere" not in header
            raw = urllib.request.urlopen(server.url(f"/api/v1/messages/{message_id}/raw"), timeout=15).read()
            # Mailroom's Received field (two lines) on top, then the message as it arrived.
            assert body.startswith(b"Received: by ")
            assert body.split(b"\n", 2)[2].rstrip(b"\n") == raw.replace(b"\r\n", b"\n").rstrip(b"\n")
            until_commit(server, lambda: "relayed on arrival, sent" in history(server, message_id), f"message {n} sent")
        assert len(sink.files()) == 5
    finally:
        server.stop()
        sink.stop()
