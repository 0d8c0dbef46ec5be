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
        self.ports = {}

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
    return free_ports(1)[0]


def free_ports(count):
    """`count` different ports nothing listens on right now (all held open while choosing, so
    the system cannot hand out one of them twice)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def start(password=None, page_size=None, smtp=False, extra=(), port_flags=()):
    """A fresh server on its own empty database; with `password`, every page asks for it first;
    with `page_size`, lists show that many rows a page; with `smtp`, it takes mail on a free
    port; each flag in `port_flags` (such as "--mailpit-port") is given a free port, found in
    `server.ports[flag]`; `extra` flags go last."""
    work = tempfile.mkdtemp(prefix="mailroom-browser-")
    environment = {key: value for key, value in os.environ.items() if key != "MAILROOM_PASSWORD"}
    if password is not None:
        environment["MAILROOM_PASSWORD"] = password
    # A free port can be taken by someone else before Mailroom binds it: then new ones, all of them.
    for attempt in range(3):
        chosen = free_ports(len(port_flags) + 1)
        smtp_port = chosen[-1] if smtp else 0
        ports = dict(zip(port_flags, chosen))
        process = subprocess.Popen(
            [BINARY, "--port", "0", "--smtp-port", str(smtp_port), "--no-samples", "--quiet",
             "--public", str(ROOT / "Public")]
            + (["--page-size", str(page_size)] if page_size else [])
            + [word for flag, port in ports.items() for word in (flag, str(port))] + list(extra),
            cwd=work, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        # The banner line is printed once the socket is listening; a warning may come first.
        printed = []
        for _ in range(5):
            line = process.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                server = Mailroom(process, int(match.group(1)), smtp_port or None, work)
                server.ports = ports
                return server
            if not line:
                break
            printed.append(line)
        exited = process.poll()
        process.kill()
        process.wait()
        if not any("cannot listen on" in line for line in printed):
            break
    # How it ended (a negative code is the signal) says whether it refused or crashed.
    raise AssertionError(f"mailroom did not start: {''.join(printed)!r}, exit status {exited}")
