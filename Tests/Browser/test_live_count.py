""""N Selected" and Delete (N) follow the ticks at once, by CSS alone (JavaScript on and off), and
the server's own count is right after the next round trip.

The live numbers are CSS counters, which neither the DOM nor the accessibility tree holds, so the
test reads the text as it is painted: it prints the page to PDF and extracts the text with
pdftotext. A heading whose count is not painted (the server's, under the live one) is not printed.
"""
import base64
import subprocess

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.print_page_options import PrintOptions

import gallery
import viewing
from conftest import make_driver


def painted_text(driver):
    """The page's text as Chromium paints it, pseudo-elements and counters included."""
    options = PrintOptions()
    options.background = False
    pdf = base64.b64decode(driver.print_page(options))
    run = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True)
    return " ".join(run.stdout.decode("utf-8").split())


def seed(mailroom, subjects):
    client = gallery.Client(mailroom)
    for subject in subjects:
        gallery.add_message(client, "", subject, "")


def boxes(driver):
    return {box.accessible_name.removeprefix("Select “").removesuffix("”"): box
            for box in driver.find_elements(By.CSS_SELECTOR, "input[name=selected]")}


def test_ticking_two_boxes_updates_the_count_and_delete_at_once(browser, mailroom):
    seed(mailroom, ["Alpha", "Bravo", "Charlie", "Delta"])
    browser.get(mailroom.url("/mailboxes/inbox?mode=active"))
    before = painted_text(browser)
    assert "0 Selected" in before and "Delete (0)" in before
    url = browser.current_url

    ticks = boxes(browser)
    ticks["Bravo"].click()
    ticks["Delta"].click()
    after = painted_text(browser)
    assert browser.current_url == url, "ticking posts nothing"
    assert "2 Selected" in after and "Delete (2)" in after
    assert "0 Selected" not in after and "Delete (0)" not in after, "the server's count is not painted"

    ticks["Bravo"].click()
    assert "1 Selected" in painted_text(browser)

    # A round trip (Enter in the form only brings the page up to date) and the server agrees.
    viewing.navigate(browser, lambda: boxes(browser)["Delta"].send_keys(Keys.ENTER))
    assert browser.find_element(By.ID, "selection-count").get_attribute("textContent") == "1 Selected"
    assert browser.title.startswith("1 Selected")
    assert browser.find_element(By.ID, "action-delete").accessible_name == "Delete (1)"
    text = painted_text(browser)
    assert "1 Selected" in text and "Delete (1)" in text


def test_trash_counts_delete_permanently_the_same_way(browser, mailroom):
    seed(mailroom, ["Old", "Older"])
    client = gallery.Client(mailroom)
    client.get("/mailboxes/inbox?mode=active")
    client.submit("edit-form", button=("action", "select-all"))
    client.submit("edit-form", button=("action", "delete"))
    browser.get(mailroom.url("/mailboxes/trash?mode=active"))
    boxes(browser)["Old"].click()
    assert "Delete Permanently (1)" in painted_text(browser)


# The live count is a copy of the header's title laid over it: it must sit exactly there, at the
# top of the page and scrolled, at every width.
ALIGNMENT = """
const live = document.querySelector(".live-selected").getBoundingClientRect();
const heading = document.getElementById("selection-count").getBoundingClientRect();
return [live.left - heading.left, live.top - heading.top, live.height - heading.height];
"""


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_the_live_count_sits_exactly_over_the_heading(mailroom, width):
    seed(mailroom, [f"Message {n}" for n in range(30)])
    driver = make_driver(javascript=False)
    try:
        viewing.apply(driver, viewing.Viewport("check", width, 700, False))
        driver.get(mailroom.url("/mailboxes/inbox?mode=active"))
        for scroll in (0, 400, 100_000):
            driver.execute_script("window.scrollTo(0, arguments[0])", scroll)
            offsets = driver.execute_script(ALIGNMENT)
            assert all(abs(offset) < 0.5 for offset in offsets), (scroll, offsets)
    finally:
        driver.quit()
