"""Fixtures: the real mailroom binary on a free port, and a real headless Chromium."""
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("MAILROOM_BIN", str(ROOT / ".build" / "debug" / "mailroom"))


class Mailroom:
    """A running server; `url(path)` gives an absolute address on loopback."""

    def __init__(self, process, port):
        self.process = process
        self.port = port

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def mailroom():
    work = tempfile.mkdtemp(prefix="mailroom-browser-")
    process = subprocess.Popen(
        [BINARY, "--port", "0", "--no-samples", "--quiet", "--public", str(ROOT / "Public")],
        cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    # Wait for the banner line, which is printed once the socket is listening.
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert match, f"mailroom did not start: {line!r}"
    yield Mailroom(process, int(match.group(1)))
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0


def make_driver(javascript):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900"):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture(params=[False, True], ids=["no-js", "js"])
def browser(request):
    driver = make_driver(javascript=request.param)
    driver.javascript_enabled = request.param
    yield driver
    driver.quit()
