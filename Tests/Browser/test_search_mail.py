"""Search as a person at the office uses it, in Chromium: a copier mails a scanned PDF with a Japanese
subject over SMTP, among other mail, and the person finds it in the Inbox by `has:attachment`, by
`from:` with the copier's address, by the bare address, and by a few kana from the middle of the
subject, with the script on and off.
"""
import smtplib
from email.message import EmailMessage
from email.utils import formataddr

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import mailroom_server
from viewing import navigate

SCAN_SUBJECT = "請求書のスキャン（3枚）"
# A real PDF's first bytes are enough for Mailroom: it stores and lists the part by its type and name.
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def scanner_mail():
    message = EmailMessage()
    message["From"] = formataddr(("複合機 スキャナー", "scanner@copier.example.test"))
    message["To"] = "office@example.test"
    message["Subject"] = SCAN_SUBJECT
    message.set_content("スキャンした文書を添付します。\n")
    message.add_attachment(PDF, maintype="application", subtype="pdf", filename="scan-0042.pdf")
    return message


def plain_note():
    message = EmailMessage()
    message["From"] = formataddr(("Cron Daemon", "root@build.example.test"))
    message["To"] = "office@example.test"
    message["Subject"] = "Nightly backup finished"
    message.set_content("Backup of /srv finished in 42 s.\n")
    return message


def newsletter_with_an_inline_logo():
    """HTML with its logo as a cid: part: shown inline, so not an attachment."""
    message = EmailMessage()
    message["From"] = formataddr(("Newsletter", "news@shop.example.test"))
    message["To"] = "office@example.test"
    message["Subject"] = "This week at the shop"
    message.set_content("This week at the shop.\n")
    message.add_alternative('<p>This week at the shop.</p><img src="cid:logo@shop" alt="Shop">', subtype="html")
    message.get_payload()[1].add_related(PNG, maintype="image", subtype="png", cid="<logo@shop>")
    return message


@pytest.fixture(scope="module")
def office():
    server = mailroom_server.start(smtp=True)
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=10) as client:
        for message in (scanner_mail(), plain_note(), newsletter_with_an_inline_logo()):
            client.send_message(message)
    yield server
    server.stop()


def search(driver, office, query):
    """Types `query` into the Inbox's search field and submits it with Enter, as a person does."""
    driver.get(office.url("/mailboxes/inbox"))
    field = driver.find_element(By.ID, "q")
    field.send_keys(query)
    navigate(driver, lambda: field.send_keys(Keys.ENTER))
    assert driver.find_element(By.ID, "q").get_attribute("value") == query
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#messages .subject")]


def test_all_three_mails_arrived(browser, office):
    browser.get(office.url("/mailboxes/inbox"))
    subjects = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#messages .subject")]
    assert sorted(subjects) == sorted([SCAN_SUBJECT, "Nightly backup finished", "This week at the shop"])


@pytest.mark.parametrize("query", [
    "has:attachment",
    "from:scanner@copier.example.test",
    "from:scanner",
    "scanner@copier.example.test",
    "スキャン",
    "from:複合機",
])
def test_the_scan_is_found(browser, office, query):
    assert search(browser, office, query) == [SCAN_SUBJECT]


def test_has_html_finds_the_newsletter_alone(browser, office):
    assert search(browser, office, "has:html") == ["This week at the shop"]


def test_kana_from_the_sender_and_kanji_from_the_subject_together(browser, office):
    assert search(browser, office, "スキャナ 請求書") == [SCAN_SUBJECT]


def test_kana_that_are_in_no_mail_find_nothing(browser, office):
    assert search(browser, office, "ファックス") == []
