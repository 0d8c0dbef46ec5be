"""The pages in a text browser (w3m, which shows hidden elements and ignores CSS and scripts):
every part of a row, the sidebar and the filters reads as separate words, and nothing hidden
shows up as stray text."""
import re
import subprocess

import gallery


def dump(mailroom, path):
    run = subprocess.run(["w3m", "-dump", "-cols", "200", mailroom.url(path)], capture_output=True, text=True,
                         check=True, timeout=30)
    return run.stdout


def test_rows_sidebar_and_filters_read_as_words(mailroom):
    client = gallery.Client(mailroom)
    gallery.add_message(client, "Ann", "Budget review", "Numbers for March")
    gallery.add_message(client, "", "Plants", "")
    text = dump(mailroom, "/mailboxes/inbox")
    assert re.search(r"Unread Ann \d\d:\d\d Budget review Numbers for March Delete", text), text
    assert re.search(r"Unread Anonymous \d\d:\d\d Plants Delete", text), text
    assert "Inbox 2 unread" in text
    assert "All Unread Flagged" in text


def test_the_edit_forms_hidden_default_button_shows_nothing(mailroom):
    client = gallery.Client(mailroom)
    gallery.add_message(client, "Ann", "Budget review", "")
    text = dump(mailroom, "/mailboxes/inbox?mode=active")
    assert "0 Selected" in text
    assert "Update" not in text and "update" not in text, text
    assert "Budget review" in text
