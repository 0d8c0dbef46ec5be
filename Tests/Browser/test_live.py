"""The optional script in a real Chromium: the list follows other people's changes without losing
what this tab was doing; shift-click ranges; every keyboard shortcut; times in the browser's own
time zone. Other clients change the mailbox over SMTP and the JSON API while the tab watches.
"""
import json
import smtplib
import urllib.request
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import gallery
import mailroom_server
from conftest import make_driver


@pytest.fixture
def server():
    running = mailroom_server.start(smtp=True)
    yield running
    running.stop()


@pytest.fixture
def chrome():
    driver = make_driver(javascript=True, height=700)
    yield driver
    driver.quit()


def seed(server, subjects):
    client = gallery.Client(server)
    for subject in subjects:
        gallery.add_message(client, "", subject, "")


def mail(server, subject, to="inbox@mailroom.test"):
    with smtplib.SMTP("127.0.0.1", server.smtp_port, timeout=10) as smtp:
        smtp.sendmail("other@example.test", [to], f"From: other@example.test\r\nTo: {to}\r\nSubject: {subject}\r\n\r\nHi\r\n")


def api(server, method, path, body=None):
    request = urllib.request.Request(
        server.url(path), method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def ids_by_subject(server):
    listed = api(server, "GET", "/api/v1/messages?limit=500")
    return {message["subject"]: message["id"] for message in listed["messages"]}


def subjects(driver):
    """The list's subjects top to bottom, read in one step (rows may be replaced meanwhile)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#messages > li .subject')].map(s => s.textContent)")


def box(driver, subject):
    return driver.find_element(By.CSS_SELECTOR, f"input[name=selected][aria-label='Select “{subject}”']")


def click(driver, element):
    """A click as a person makes it: on the element once it is in the middle of the screen,
    clear of the toolbar that floats over the bottom of the list."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def ticked(driver):
    return [element.get_attribute("aria-label").removeprefix("Select “").removesuffix("”")
            for element in driver.find_elements(By.CSS_SELECTOR, "input[name=selected]") if element.is_selected()]


def wait_for(driver, condition, what):
    WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda _: condition(), message=what)


def row_top(driver, subject):
    return driver.execute_script(
        "return [...document.querySelectorAll('#messages > li')].find(r => r.querySelector('.subject').textContent"
        " === arguments[0]).getBoundingClientRect().top", subject)


def live(driver):
    """Waits until the page's event stream is open, so a change from now on reaches it."""
    wait_for(driver, lambda: driver.execute_script("return document.documentElement.dataset.live === 'open'"),
             "the stream opens")


NAMES = [f"Message {n:02}" for n in range(30, 0, -1)]  # top to bottom: Message 01 ... Message 30


def test_editing_survives_mail_arriving_and_rows_leaving(server, chrome):
    seed(server, NAMES)
    chrome.get(server.url("/mailboxes/inbox?mode=active"))
    url = chrome.current_url
    click(chrome, box(chrome, "Message 02"))
    click(chrome, box(chrome, "Message 20"))
    chrome.execute_script("window.scrollTo(0, 500)")
    box(chrome, "Message 12").send_keys(Keys.SHIFT)  # focus without ticking
    focused_before = chrome.switch_to.active_element.get_attribute("aria-label")
    top_before = row_top(chrome, "Message 15")
    live(chrome)

    for n in range(3):
        mail(server, f"Arrived {n}")
    api(server, "POST", "/api/v1/messages/delete", {"ids": [ids_by_subject(server)["Message 05"]]})

    wait_for(chrome, lambda: "Arrived 2" in subjects(chrome) and "Message 05" not in subjects(chrome),
             "the new mail and the deletion reach the open list")
    assert chrome.current_url == url, "nothing navigated"
    assert subjects(chrome)[:3] == ["Arrived 2", "Arrived 1", "Arrived 0"]
    assert sorted(ticked(chrome)) == ["Message 02", "Message 20"], "the ticks are kept; new rows come unticked"
    assert chrome.switch_to.active_element.get_attribute("aria-label") == focused_before, "focus stays"
    assert abs(row_top(chrome, "Message 15") - top_before) < 1, "what was on screen stays where it was"
    assert chrome.find_element(By.ID, "selection-count").get_attribute("textContent") == "2 Selected"
    assert chrome.title.startswith("2 Selected")
    assert chrome.find_element(By.ID, "action-delete").accessible_name == "Delete (2)"
    inbox = next(m for m in api(server, "GET", "/api/v1/mailboxes")["mailboxes"] if m["id"] == "inbox")
    wait_for(chrome, lambda: chrome.find_element(
        By.CSS_SELECTOR, "a.mailbox-link[data-mailbox=inbox] .unread-count").text == f"{inbox['unread']:,}",
        "the sidebar counts the new mail")


def test_a_pending_confirmation_and_typed_text_survive(server, chrome):
    seed(server, NAMES[-5:])
    ids = ids_by_subject(server)
    chrome.get(server.url(f"/mailboxes/inbox?mode=transient&row={ids['Message 03']}"))
    search = chrome.find_element(By.ID, "q")
    search.send_keys("half a que")
    live(chrome)

    mail(server, "Arrived")
    api(server, "POST", "/api/v1/messages/delete", {"ids": [ids["Message 01"]]})
    wait_for(chrome, lambda: "Arrived" in subjects(chrome) and "Message 01" not in subjects(chrome), "changes arrive")

    confirming = chrome.find_elements(By.CSS_SELECTOR, "#messages > li.confirming")
    assert [row.find_element(By.CSS_SELECTOR, ".subject").text for row in confirming] == ["Message 03"]
    assert chrome.find_element(By.CSS_SELECTOR, "li.confirming form.confirm").is_displayed()
    assert search.get_attribute("value") == "half a que"
    assert chrome.switch_to.active_element == search, "the search field keeps the keyboard"


def test_typed_text_in_the_add_form_survives(server, chrome):
    seed(server, ["Alpha"])
    chrome.get(server.url("/mailboxes/inbox"))
    chrome.find_element(By.CSS_SELECTOR, "#compose summary").click()
    subject = chrome.find_element(By.ID, "subject")
    subject.send_keys("A draft in progress")
    live(chrome)
    mail(server, "Arrived")
    wait_for(chrome, lambda: "Arrived" in subjects(chrome), "the new mail arrives")
    assert subject.get_attribute("value") == "A draft in progress"
    assert chrome.switch_to.active_element == subject


def test_select_all_n_does_not_sweep_in_later_mail():
    driver = make_driver(javascript=True)
    small = mailroom_server.start(smtp=True, page_size=10)
    try:
        seed(small, NAMES[-12:])
        driver.get(small.url("/mailboxes/inbox?mode=active"))
        driver.find_element(By.ID, "action-select-all").click()
        # The click posts a form: the offer to take all 12 is on the page that answers it.
        wait_for(driver, lambda: driver.find_elements(By.ID, "select-all-everything"), "the offer to select all 12")
        driver.find_element(By.ID, "select-all-everything").click()
        wait_for(driver, lambda: "All 12 messages" in driver.execute_script(
            "const e = document.getElementById('select-everything'); return e ? e.innerText : ''"), "all 12 selected")
        live(driver)
        mail(small, "Arrived later")
        wait_for(driver, lambda: "Arrived later" in subjects(driver), "the new mail is shown")
        assert not box(driver, "Arrived later").is_selected()
        driver.find_element(By.ID, "action-delete").click()
        wait_for(driver, lambda: subjects(driver) == ["Arrived later"], "the delete of all 12")
        left = [m["subject"] for m in api(small, "GET", "/api/v1/messages")["messages"]]
        assert left == ["Arrived later"]
    finally:
        driver.quit()
        small.stop()


def test_shift_click_ticks_a_range(server, chrome):
    seed(server, NAMES[-6:])
    chrome.get(server.url("/mailboxes/inbox?mode=active"))
    click(chrome, box(chrome, "Message 02"))
    chrome.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true, shiftKey: true}))", box(chrome, "Message 05"))
    assert ticked(chrome) == ["Message 02", "Message 03", "Message 04", "Message 05"]
    assert chrome.find_element(By.ID, "selection-count").get_attribute("textContent") == "4 Selected"
    assert chrome.find_element(By.ID, "action-archive").get_attribute("aria-disabled") == "false"


def keys(driver, text):
    """Keys as a person types them, to whatever has focus."""
    ActionChains(driver).send_keys(text).perform()


def unfocus(driver):
    driver.execute_script("document.activeElement.blur()")


def test_every_shortcut(server, chrome):
    seed(server, NAMES[-6:])
    chrome.get(server.url("/mailboxes/inbox"))
    # Typing in a field is typing: no shortcut fires.
    search = chrome.find_element(By.ID, "q")
    search.send_keys("jkx")
    assert search.get_attribute("value") == "jkx" and chrome.switch_to.active_element == search
    search.clear()
    unfocus(chrome)

    keys(chrome, "?")
    dialog = chrome.find_element(By.ID, "shortcuts")
    assert dialog.get_attribute("open") is not None and "Next message" in dialog.text
    keys(chrome, Keys.ESCAPE)
    wait_for(chrome, lambda: dialog.get_attribute("open") is None, "the list of shortcuts closes")

    keys(chrome, "j")
    assert chrome.switch_to.active_element.get_attribute("href").endswith(str(ids_by_subject(server)["Message 01"]))
    keys(chrome, "j")
    keys(chrome, "k")
    assert "Message 01" in chrome.switch_to.active_element.text
    keys(chrome, "/")
    assert chrome.switch_to.active_element == chrome.find_element(By.ID, "q")
    unfocus(chrome)

    # x outside edit mode starts editing with the focused row ticked.
    keys(chrome, "j")
    keys(chrome, "x")
    wait_for(chrome, lambda: "mode=active" in chrome.current_url, "edit mode")
    assert ticked(chrome) == ["Message 01"]
    click(chrome, box(chrome, "Message 01"))
    box(chrome, "Message 03").send_keys(Keys.SHIFT)
    keys(chrome, "x")
    assert ticked(chrome) == ["Message 03"]
    keys(chrome, "j")
    keys(chrome, "j")
    keys(chrome, "X")
    assert ticked(chrome) == ["Message 03", "Message 04", "Message 05"]

    # # deletes the ticked rows to Trash, u undoes it.
    keys(chrome, "#")
    wait_for(chrome, lambda: "Message 03" not in subjects(chrome), "the delete")
    assert chrome.find_element(By.ID, "undo").is_displayed()
    unfocus(chrome)
    keys(chrome, "u")
    wait_for(chrome, lambda: "Message 04" in subjects(chrome), "the undo")

    # e archives the ticked rows.
    click(chrome, box(chrome, "Message 06"))
    unfocus(chrome)
    keys(chrome, "e")
    wait_for(chrome, lambda: "Message 06" not in subjects(chrome), "the archive")
    assert "Message 06" in [m["subject"] for m in api(server, "GET", "/api/v1/messages?mailbox=archive")["messages"]]

    # Esc is Done; o opens the focused message.
    unfocus(chrome)
    keys(chrome, Keys.ESCAPE)
    wait_for(chrome, lambda: "mode=active" not in chrome.current_url, "Done")
    keys(chrome, "j")
    keys(chrome, "o")
    wait_for(chrome, lambda: "/messages/" in chrome.current_url, "the message opens")
    assert chrome.find_element(By.TAG_NAME, "h1").text == "Message 01"


def test_times_are_shown_in_the_browsers_time_zone(server, chrome):
    seed(server, ["Alpha"])
    chrome.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    chrome.get(server.url("/mailboxes/inbox"))
    time = chrome.find_element(By.CSS_SELECTOR, "#messages time")
    moment = datetime.fromisoformat(time.get_attribute("datetime").replace("Z", "+00:00"))
    local = moment.astimezone(ZoneInfo("Asia/Tokyo"))
    now = datetime.now(timezone.utc).astimezone(ZoneInfo("Asia/Tokyo"))
    expected = local.strftime("%H:%M") if local.date() == now.date() else f"{local.strftime('%b')} {local.day}"
    assert time.text == expected


def test_axe_finds_nothing_in_a_live_list_or_the_shortcuts(server, chrome):
    from test_accessibility import run_axe
    seed(server, NAMES[-4:])
    chrome.get(server.url("/mailboxes/inbox?mode=active"))
    click(chrome, box(chrome, "Message 02"))
    live(chrome)
    mail(server, "Arrived")
    wait_for(chrome, lambda: "Arrived" in subjects(chrome), "the new mail arrives")
    assert run_axe(chrome)["violations"] == []
    unfocus(chrome)
    keys(chrome, "?")
    assert chrome.find_element(By.ID, "shortcuts").get_attribute("open") is not None
    assert run_axe(chrome)["violations"] == []
