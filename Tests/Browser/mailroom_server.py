"""Starting and stopping the real mailroom binary on a free port, for tests and scripts."""
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("MAILROOM_BIN", str(ROOT / ".build" / "debug" / "mailroom"))
TOOLS = ROOT / ".build" / "test-tools"


class Mailroom:
    """A running server; `url(path)` gives an absolute address on loopback; `smtp_port` is its
    SMTP port when started with `smtp=True`, else None."""

    def __init__(self, process, port, smtp_port=None, work=None):
        self.process = process
        self.port = port
        self.smtp_port = smtp_port
        self.work = work

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=10) == 0, "mailroom exits 0 on SIGTERM"
        self.process.stdout.close()
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)


def free_port():
    """A port nothing listens on right now, for the SMTP listener (whose 0 means off)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(password=None, page_size=None, smtp=False, extra=()):
    """A fresh server on its own empty database; with `password`, every page asks for it first;
    with `page_size`, lists show that many rows a page; with `smtp`, it takes mail on a free
    port; `extra` flags go last."""
    work = tempfile.mkdtemp(prefix="mailroom-browser-")
    environment = {key: value for key, value in os.environ.items() if key != "MAILROOM_PASSWORD"}
    if password is not None:
        environment["MAILROOM_PASSWORD"] = password
    # A free port can be taken by someone else before Mailroom binds it: then another.
    for attempt in range(3):
        smtp_port = free_port() if smtp else 0
        process = subprocess.Popen(
            [BINARY, "--port", "0", "--smtp-port", str(smtp_port), "--no-samples", "--quiet",
             "--public", str(ROOT / "Public")]
            + (["--page-size", str(page_size)] if page_size else []) + list(extra),
            cwd=work, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        # The banner line is printed once the socket is listening; a warning may come first.
        for _ in range(5):
            line = process.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                return Mailroom(process, int(match.group(1)), smtp_port or None, work)
            if not line:
                break
        exited = process.poll()
        process.kill()
        process.wait()
        if "cannot listen on" not in line:
            break
    # How it ended (a negative code is the signal) says whether it refused or crashed.
    raise AssertionError(f"mailroom did not start: {line!r}, exit status {exited}")
