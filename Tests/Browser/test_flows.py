"""Every list flow as a person does it in Chromium: with the mouse and with the keyboard."""
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import gallery
import mailroom_server
from viewing import navigate


def wait_for(driver, condition, what):
    WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), message=what)


def add_message(driver, mailroom, subject, body=""):
    driver.get(mailroom.url("/mailboxes/inbox"))
    compose = driver.find_element(By.ID, "compose")
    if compose.get_attribute("open") is None:
        compose.find_element(By.TAG_NAME, "summary").click()
    driver.find_element(By.ID, "subject").send_keys(subject)
    if body:
        driver.find_element(By.ID, "body").send_keys(body)
    button = driver.find_element(By.CSS_SELECTOR, "#add-form button[type=submit]")
    navigate(driver, button.click)
    wait_for(driver, lambda d: subject in row_subjects(d), f"{subject} appears in the list")


def row_subjects(driver):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#messages .subject")]


def checked_subjects(driver):
    return [
        row.find_element(By.CSS_SELECTOR, ".subject").text
        for row in driver.find_elements(By.CSS_SELECTOR, "#messages li")
        if row.find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
    ]


def seed(driver, mailroom, subjects):
    for subject in subjects:
        add_message(driver, mailroom, subject)


def test_new_messages_go_on_top(browser, mailroom):
    seed(browser, mailroom, ["First", "Second"])
    assert row_subjects(browser) == ["Second", "First"]
    assert "Message added." in browser.find_element(By.CSS_SELECTOR, ".notice").text


def test_empty_mailbox_cannot_enter_edit_mode(browser, mailroom):
    browser.get(mailroom.url("/mailboxes/inbox"))
    edit = browser.find_element(By.ID, "edit")
    assert not edit.is_enabled()
    assert browser.find_element(By.ID, "empty").is_displayed()


def test_clicking_rows_in_edit_mode_ticks_them_without_navigating(browser, mailroom):
    seed(browser, mailroom, ["Alpha", "Beta", "Gamma"])
    navigate(browser, browser.find_element(By.ID, "edit").click)
    wait_for(browser, lambda d: d.find_elements(By.ID, "toolbar"), "toolbar appears")
    assert browser.find_element(By.ID, "done").text == "Done"
    url = browser.current_url
    for row in browser.find_elements(By.CSS_SELECTOR, "#messages .row-select"):
        if "Beta" in row.text:
            row.click()
    assert browser.current_url == url
    assert checked_subjects(browser) == ["Beta"]


def test_select_all_then_delete_empties_the_list_and_leaves_edit_mode(browser, mailroom):
    seed(browser, mailroom, ["One", "Two"])
    navigate(browser, browser.find_element(By.ID, "edit").click)
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "button[value=select-all]").click)
    wait_for(browser, lambda d: "2 Selected" in d.title, "title counts the selection")
    assert checked_subjects(browser) == ["Two", "One"]
    assert browser.find_element(By.CSS_SELECTOR, "button[value=deselect-all]").text == "Deselect All"
    navigate(browser, browser.find_element(By.ID, "action-delete").click)
    wait_for(browser, lambda d: d.find_elements(By.ID, "empty"), "empty state appears")
    assert not browser.find_elements(By.ID, "toolbar")
    assert browser.find_element(By.ID, "edit").text == "Edit"


def test_keyboard_alone_ticks_and_deletes(browser, mailroom):
    seed(browser, mailroom, ["Keep", "Drop"])
    browser.get(mailroom.url("/mailboxes/inbox?mode=active"))
    box = browser.find_element(By.CSS_SELECTOR, "input[aria-label='Select “Drop”']")
    box.send_keys(Keys.SPACE)
    assert box.is_selected()
    # Tab from the checkbox reaches that row's own controls; Enter on its Delete posts.
    delete = browser.find_element(By.CSS_SELECTOR, "button[aria-label='Delete “Drop”']")
    navigate(browser, lambda: delete.send_keys(Keys.ENTER))
    wait_for(browser, lambda d: row_subjects(d) == ["Keep"], "Drop is gone")
    assert browser.find_elements(By.ID, "toolbar"), "still in edit mode"


def test_tick_survives_move_up_on_another_row(browser, mailroom):
    seed(browser, mailroom, ["E", "D", "C", "B", "A"])
    navigate(browser, browser.find_element(By.ID, "edit").click)
    browser.find_element(By.CSS_SELECTOR, "input[aria-label='Select “C”']").click()
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='Move “E” up']").click)
    wait_for(browser, lambda d: row_subjects(d) == ["A", "B", "C", "E", "D"], "E moved up")
    assert checked_subjects(browser) == ["C"]


def test_reload_after_a_post_does_not_post_again_and_back_returns(browser, mailroom):
    seed(browser, mailroom, ["Only"])
    navigate(browser, browser.refresh)
    assert row_subjects(browser) == ["Only"]
    navigate(browser, browser.find_element(By.ID, "edit").click)
    wait_for(browser, lambda d: d.find_elements(By.ID, "toolbar"), "edit mode")
    navigate(browser, browser.back)
    wait_for(browser, lambda d: not d.find_elements(By.ID, "toolbar"), "back to browsing")
    assert browser.find_element(By.ID, "edit").text == "Edit"


def test_swipe_style_delete_asks_first(browser, mailroom):
    seed(browser, mailroom, ["Stay", "Go"])
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "a[aria-label='Delete “Go”']").click)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".confirming"), "confirmation opens")
    assert browser.find_element(By.ID, "done").text == "Done"
    navigate(browser, browser.find_element(By.LINK_TEXT, "Cancel").click)
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, ".confirming"), "cancel closes it")
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "a[aria-label='Delete “Go”']").click)
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='Confirm delete “Go”']").click)
    wait_for(browser, lambda d: row_subjects(d) == ["Stay"], "Go deleted")
    assert browser.find_element(By.ID, "edit").text == "Edit"


def test_opening_a_message_marks_it_read_and_it_can_be_edited(browser, mailroom):
    add_message(browser, mailroom, "Read me", "Line one")
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "#messages .row-link").click)
    wait_for(browser, lambda d: "/messages/" in d.current_url, "message page opens")
    assert browser.find_element(By.CSS_SELECTOR, ".message-subject").text == "Read me"
    browser.find_element(By.CSS_SELECTOR, "#edit-message summary").click()
    subject = browser.find_element(By.ID, "subject")
    subject.clear()
    subject.send_keys("Read me, edited")
    navigate(browser, browser.find_element(By.CSS_SELECTOR, "#save-form button[type=submit]").click)
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".message-subject").text == "Read me, edited",
             "subject saved")
    navigate(browser, browser.find_element(By.ID, "back").click)
    row = browser.find_element(By.CSS_SELECTOR, "#messages li")
    assert "unread" not in row.get_attribute("class")


def test_enter_on_a_checkbox_keeps_the_ticks_instead_of_selecting_all(browser, mailroom):
    seed(browser, mailroom, ["One", "Two", "Three"])
    browser.get(mailroom.url("/mailboxes/inbox?mode=active"))
    box = browser.find_element(By.CSS_SELECTOR, "input[aria-label='Select “Two”']")
    box.send_keys(Keys.SPACE)
    navigate(browser, lambda: box.send_keys(Keys.ENTER))
    assert checked_subjects(browser) == ["Two"]
    assert "1 Selected" in browser.title


# --- Lists bigger than a page ----------------------------------------------------------------


@pytest.fixture
def paged():
    """A server showing ten rows a page, with 25 messages, "Note 1" (oldest) to "Note 25" on top."""
    server = mailroom_server.start(page_size=10)
    client = gallery.Client(server)
    for index in range(1, 26):
        gallery.add_message(client, "Ann" if index % 2 else "Bob", f"Note {index}", f"Body of note {index}")
    yield server
    server.stop()


def press(driver, element):
    """Follows a link or presses a button with the keyboard alone: Enter on it, focused."""
    navigate(driver, lambda: element.send_keys(Keys.ENTER))


def test_older_and_newer_walk_the_pages_by_keyboard(browser, paged):
    browser.get(paged.url("/mailboxes/inbox"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(25, 15, -1)]
    assert "1–10 of 25" in browser.find_element(By.CSS_SELECTOR, ".bar-context").text
    press(browser, browser.find_element(By.ID, "older"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(15, 5, -1)]
    assert "11–20 of 25" in browser.find_element(By.CSS_SELECTOR, ".bar-context").text
    press(browser, browser.find_element(By.ID, "older"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(5, 0, -1)]
    assert not browser.find_elements(By.ID, "older")
    press(browser, browser.find_element(By.ID, "newer"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(15, 5, -1)]
    press(browser, browser.find_element(By.ID, "newest"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(25, 15, -1)]


def test_edit_mode_and_a_post_stay_on_the_same_page(browser, paged):
    browser.get(paged.url("/mailboxes/inbox"))
    press(browser, browser.find_element(By.ID, "older"))
    press(browser, browser.find_element(By.ID, "edit"))
    box = browser.find_element(By.CSS_SELECTOR, "input[aria-label='Select “Note 12”']")
    box.send_keys(Keys.SPACE)
    press(browser, browser.find_element(By.ID, "action-flag"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(15, 5, -1)], "the same page after the post"
    assert browser.find_elements(By.ID, "toolbar"), "still in edit mode"
    assert "1 message flagged." in browser.find_element(By.ID, "notice").text


def test_searching_from_the_keyboard_and_the_quick_filters(browser, paged):
    browser.get(paged.url("/mailboxes/inbox"))
    field = browser.find_element(By.ID, "q")
    field.send_keys("from:bob \"note 1\"*")
    navigate(browser, lambda: field.send_keys(Keys.ENTER))
    assert row_subjects(browser) == ["Note 18", "Note 16", "Note 14", "Note 12", "Note 10"]
    assert browser.find_element(By.ID, "q").get_attribute("value") == "from:bob \"note 1\"*"
    field = browser.find_element(By.ID, "q")
    field.clear()
    field.send_keys("is:bogus")
    navigate(browser, lambda: field.send_keys(Keys.ENTER))
    assert "is:unread" in browser.find_element(By.ID, "search-problem").text
    press(browser, browser.find_element(By.ID, "filter-unread"))
    assert len(row_subjects(browser)) == 10
    assert browser.find_element(By.ID, "filter-unread").get_attribute("aria-current") == "page"


def test_select_all_n_then_delete_and_undo_them_all(browser, paged):
    browser.get(paged.url("/mailboxes/inbox?mode=active"))
    press(browser, browser.find_element(By.ID, "action-select-all"))
    assert "10 Selected" in browser.title
    press(browser, browser.find_element(By.ID, "select-all-everything"))
    assert browser.find_element(By.ID, "selection-count").text == "All 25 Selected"
    assert "Delete (25)" in browser.find_element(By.ID, "action-delete").text
    press(browser, browser.find_element(By.ID, "action-delete"))
    assert "25 messages moved to Trash." in browser.find_element(By.ID, "notice").text
    assert browser.find_elements(By.ID, "empty")
    press(browser, browser.find_element(By.ID, "undo"))
    assert row_subjects(browser) == [f"Note {n}" for n in range(25, 15, -1)]
    assert "25 messages put back." in browser.find_element(By.ID, "notice").text
