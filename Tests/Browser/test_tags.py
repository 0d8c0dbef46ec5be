"""Tags as a person uses them, in Chromium, with the script on and off: mail arrives over SMTP
(one with an X-Tags header), the person ticks two messages in edit mode, types a tag and
presses Tag, sees the chips and the tag's count in the sidebar, and finds exactly those two by
`tag:` in the search field and by the sidebar's link.
"""
import smtplib
import uuid
from email.message import EmailMessage

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import mailroom_server
from viewing import navigate

SUBJECTS = ["Toner low on floor 2", "Invoice 2026-118", "Lunch on Friday", "Invoice 2026-119"]


@pytest.fixture(scope="module")
def office():
    server = mailroom_server.start(smtp=True)
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=10) as client:
        for subject in SUBJECTS:
            message = EmailMessage()
            message["From"] = "desk@example.test"
            message["To"] = "office@example.test"
            message["Subject"] = subject
            if subject.startswith("Toner"):
                message["X-Tags"] = "printer"
            message.set_content(f"About {subject}.\n")
            client.send_message(message)
    yield server
    server.stop()


def subjects(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#messages .subject")]


def row_of(driver, subject):
    for row in driver.find_elements(By.CSS_SELECTOR, "#messages li"):
        if row.find_element(By.CSS_SELECTOR, ".subject").text == subject:
            return row
    raise AssertionError(f"no row {subject!r}")


def test_an_x_tags_header_shows_as_a_chip(browser, office):
    browser.get(office.url("/mailboxes/inbox"))
    chips = row_of(browser, "Toner low on floor 2").find_elements(By.CSS_SELECTOR, ".row-tags .tag-chip")
    assert [chip.text for chip in chips] == ["printer"]


def test_tagging_a_selection_in_edit_mode_and_finding_it_by_tag(browser, office):
    tag = "invoices-" + uuid.uuid4().hex[:6]
    browser.get(office.url("/mailboxes/inbox"))
    navigate(browser, browser.find_element(By.ID, "edit").click)
    for subject in ("Invoice 2026-118", "Invoice 2026-119"):
        row_of(browser, subject).find_element(By.CSS_SELECTOR, "input[type=checkbox]").send_keys(Keys.SPACE)
    field = browser.find_element(By.ID, "tag-name")
    field.send_keys(tag)
    navigate(browser, browser.find_element(By.ID, "action-tag").click)

    # Still editing, the two still ticked, and the page says what happened.
    assert browser.find_element(By.ID, "done").is_displayed()
    ticked = [row.find_element(By.CSS_SELECTOR, ".subject").text
              for row in browser.find_elements(By.CSS_SELECTOR, "#messages li")
              if row.find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()]
    assert sorted(ticked) == ["Invoice 2026-118", "Invoice 2026-119"]
    assert f"2 messages tagged “{tag}”." in browser.find_element(By.ID, "notice").text
    for subject in ("Invoice 2026-118", "Invoice 2026-119"):
        chips = [chip.text for chip in row_of(browser, subject).find_elements(By.CSS_SELECTOR, ".tag-chip")]
        assert tag in chips
    assert tag not in [chip.text for chip in row_of(browser, "Lunch on Friday").find_elements(By.CSS_SELECTOR, ".tag-chip")]

    # The sidebar counts the tag in this mailbox and its link is the tag's search.
    link = browser.find_element(By.CSS_SELECTOR, f"#tags a[data-tag='{tag}']")
    assert link.find_element(By.CSS_SELECTOR, ".tag-count").text == "2"
    navigate(browser, browser.find_element(By.ID, "done").click)
    link = browser.find_element(By.CSS_SELECTOR, f"#tags a[data-tag='{tag}']")
    navigate(browser, link.click)
    assert sorted(subjects(browser)) == ["Invoice 2026-118", "Invoice 2026-119"]

    # Typed into the search field, as a person would.
    browser.get(office.url("/mailboxes/inbox"))
    search = browser.find_element(By.ID, "q")
    search.send_keys(f"tag:{tag.upper()}")
    navigate(browser, lambda: search.send_keys(Keys.ENTER))
    assert sorted(subjects(browser)) == ["Invoice 2026-118", "Invoice 2026-119"]


def test_pressing_tag_with_no_name_keeps_edit_mode_and_the_ticks(browser, office):
    browser.get(office.url("/mailboxes/inbox"))
    navigate(browser, browser.find_element(By.ID, "edit").click)
    row_of(browser, "Lunch on Friday").find_element(By.CSS_SELECTOR, "input[type=checkbox]").send_keys(Keys.SPACE)
    navigate(browser, browser.find_element(By.ID, "action-tag").click)
    assert "Write a tag first" in browser.find_element(By.ID, "notice").text
    assert row_of(browser, "Lunch on Friday").find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
