"""Every page in every state, and the stylesheet, pass the Nu Html Checker (vnu.jar) with no errors.

The pages are fetched over HTTP from the real server, written to a folder and checked in one run
of the checker, together with Public/style.css.
"""
import json
import subprocess
from pathlib import Path

import pytest

import gallery
import mailroom_server

VNU = mailroom_server.TOOLS / "vnu.jar"
STYLESHEET = mailroom_server.ROOT / "Public" / "style.css"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """The checker's messages for every page and the stylesheet, by file name."""
    folder = tmp_path_factory.mktemp("pages")
    server = mailroom_server.start(page_size=gallery.PAGE_SIZE, smtp=True)
    locked = mailroom_server.start(password="correct horse")
    try:
        states = gallery.seed(server)
        files = []
        for state in states:
            client = gallery.Client(locked if state.signin else server)
            page = folder / f"{state.name}.html"
            page.write_text(gallery.fetch(client, state), encoding="utf-8")
            files.append(page)
    finally:
        server.stop()
        locked.stop()
    run = subprocess.run(
        ["java", "-jar", str(VNU), "--format", "json", "--also-check-css", *map(str, files), str(STYLESHEET)],
        capture_output=True, text=True, timeout=300)
    messages = json.loads(run.stderr or run.stdout)["messages"]
    by_file = {path.name: [] for path in [*files, STYLESHEET]}
    for message in messages:
        by_file.setdefault(Path(message.get("url", "?").removeprefix("file:")).name, []).append(message)
    # A summary in the test log: errors and warnings per file.
    for name, found in by_file.items():
        errors = sum(m["type"] == "error" or m.get("subType") == "fatal" for m in found)
        print(f"vnu {name}: {errors} errors, {len(found) - errors} warnings/info")
    return by_file


def describe(messages):
    return "\n".join(f'{m.get("lastLine", "?")}:{m.get("firstColumn", "?")} {m["type"]}: {m["message"]}\n'
                     f'    {m.get("extract", "").strip()}' for m in messages)


def test_every_page_and_the_stylesheet_have_no_errors(checked):
    errors = {name: [m for m in found if m["type"] in ("error", "non-document-error")]
              for name, found in checked.items()}
    errors = {name: found for name, found in errors.items() if found}
    assert not errors, "\n".join(f"{name}:\n{describe(found)}" for name, found in errors.items())


def test_every_state_was_checked(checked):
    assert len(checked) >= 23, sorted(checked)
