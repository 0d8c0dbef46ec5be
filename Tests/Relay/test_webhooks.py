"""Webhooks as another system hears them: a small HTTP receiver on a free loopback port checks
each call's HMAC signature, the order of the calls, and that a call answered 500 comes again;
a dead target never stops mail from being stored.
"""
import hashlib
import hmac
import json
import os
import smtplib
import sys
import tempfile
import threading
import time
import urllib.request
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Browser"))
import mailroom_server  # noqa: E402

SECRET = b"webhook secret for the tests"


def wait_for(receiver, condition, what, timeout=20):
    """Waits on the receiver's condition, woken by each call it records, until `condition` holds."""
    with receiver.arrived:
        if not receiver.arrived.wait_for(condition, timeout):
            raise AssertionError(f"timed out waiting for {what}")


def until_commit(server, condition, what, timeout=20):
    """Re-checks `condition` at each of Mailroom's commits (its /events stream), until it holds."""
    request = urllib.request.Request(server.url("/events"), headers={"Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=timeout) as stream:
        while not condition():
            if not stream.readline():
                raise AssertionError(f"the event stream ended before {what}")


class Receiver:
    """Records each call; answers 500 to the first `failures` calls, 204 after."""

    def __init__(self, failures=0):
        self.calls = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.failures = failures
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.calls.append((dict(self.headers), body))
                    fail = receiver.failures > 0
                    if fail:
                        receiver.failures -= 1
                    receiver.arrived.notify_all()
                self.send_response(500 if fail else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return f"http://127.0.0.1:{self.port}/hooks/mail"

    def bodies(self):
        with self.lock:
            return [json.loads(body) for _, body in self.calls]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def start(*targets, extra=()):
    folder = tempfile.mkdtemp(prefix="mailroom-hook-")
    secret_file = os.path.join(folder, "secret")
    Path(secret_file).write_bytes(SECRET + b"\n")
    flags = []
    for target in targets:
        flags += ["--webhook", target]
    return mailroom_server.start(smtp=True, extra=flags + ["--webhook-secret-file", secret_file, *extra])


def send(server, subject, tags=None):
    message = EmailMessage()
    message["From"] = "Cron <cron@example.test>"
    message["To"] = "ops@example.test"
    message["Subject"] = subject
    if tags:
        message["X-Tags"] = tags
    message.set_content(f"{subject}.\n")
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=10) as client:
        client.send_message(message)


def test_each_stored_message_is_announced_signed_and_in_order():
    receiver = Receiver()
    server = start(receiver.url(), extra=["--webhook-concurrency", "1"])
    try:
        for number in range(5):
            send(server, f"Backup {number}", tags="cron" if number == 0 else None)
        wait_for(receiver, lambda: len(receiver.calls) == 5, "five calls")
        deliveries = []
        for headers, body in receiver.calls:
            expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
            assert headers["X-Mailroom-Signature"] == expected
            assert headers["Content-Type"] == "application/json"
            deliveries.append(int(headers["X-Mailroom-Delivery"]))
        assert deliveries == sorted(deliveries)
        bodies = receiver.bodies()
        assert [body["subject"] for body in bodies] == [f"Backup {n}" for n in range(5)]
        first = bodies[0]
        assert first["event"] == "message.stored" and first["mailbox"] == "inbox" and first["tags"] == ["cron"]
        assert first["to"] == ["ops@example.test"] and "cron@example.test" in first["from"]
        assert first["url"] == server.url(f"/messages/{first['id']}")
        raw = urllib.request.urlopen(first["raw_url"], timeout=10).read()
        assert b"Subject: Backup 0" in raw and first["size"] == len(raw)
    finally:
        server.stop()
        receiver.stop()


def test_a_call_answered_500_is_made_again():
    receiver = Receiver(failures=1)
    server = start(receiver.url())
    try:
        send(server, "Retry me")
        # The first try at once, the second ten seconds later.
        wait_for(receiver, lambda: len(receiver.calls) == 2, "the call to come again", timeout=30)
        first, second = receiver.calls
        assert first[1] == second[1]
        assert first[0]["X-Mailroom-Delivery"] == second[0]["X-Mailroom-Delivery"]
        metrics = urllib.request.urlopen(server.url("/metrics"), timeout=10).read().decode()
        assert "mailroom_webhooks_retried_total 1" in metrics
        until_commit(server, lambda: "mailroom_webhooks_delivered_total 1" in
                 urllib.request.urlopen(server.url("/metrics"), timeout=10).read().decode(), "the delivery to be counted")
    finally:
        server.stop()
        receiver.stop()


def test_a_dead_target_never_stops_mail_from_being_stored():
    dead = f"http://127.0.0.1:{mailroom_server.free_port()}/nobody"
    server = start(dead)
    try:
        for number in range(20):
            send(server, f"Stored anyway {number}")
        listing = json.load(urllib.request.urlopen(server.url("/api/v1/messages?limit=50"), timeout=10))
        assert listing["total"] == 20
    finally:
        server.stop()


def test_a_webhook_that_points_at_mailroom_itself_is_refused_at_start():
    import subprocess
    port = mailroom_server.free_port()
    result = subprocess.run(
        [mailroom_server.BINARY, "--port", str(port), "--smtp-port", "0", "--webhook", f"http://localhost:{port}/x"],
        capture_output=True, text=True, timeout=30, cwd=tempfile.mkdtemp(prefix="mailroom-hook-"))
    assert result.returncode != 0
    assert "points at one of Mailroom's own ports" in result.stderr
