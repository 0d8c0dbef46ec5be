"""Accessibility in Chromium: axe-core on every state at phone and desktop widths, light and dark,
and the checks axe cannot make (names, live regions, focus, skip link, touch target sizes)."""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import gallery
import mailroom_server
import viewing
from conftest import make_driver

AXE = (mailroom_server.TOOLS / "axe.min.js").read_text(encoding="utf-8")
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# Pages allow only Mailroom's own script (CSP), but WebDriver's injected scripts still run; axe
# then runs asynchronously and hands back what it found.
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {runOnly: {type: "tag", values: arguments[0]}, resultTypes: ["violations", "incomplete"]})
  .then(result => done({
    version: axe.version,
    violations: result.violations.map(rule => ({
      id: rule.id, impact: rule.impact, help: rule.help,
      nodes: rule.nodes.map(node => node.target.join(" ") + ": " + node.failureSummary)})),
    incomplete: result.incomplete.map(rule => ({id: rule.id, count: rule.nodes.length})),
  }))
  .catch(error => done({error: String(error)}));
"""


@pytest.fixture(scope="module")
def servers():
    """One server seeded with every state, and one with a password for the sign-in page."""
    server = mailroom_server.start(page_size=gallery.PAGE_SIZE, smtp=True)
    locked = mailroom_server.start(password="correct horse")
    try:
        states = gallery.seed(server)
        yield server, locked, {state.name: state for state in states}
    finally:
        server.stop()
        locked.stop()


STATE_NAMES = [
    "inbox", "inbox-transient", "inbox-active", "inbox-select-all", "inbox-all-selected", "inbox-older",
    "inbox-search", "inbox-search-active", "inbox-no-results", "inbox-search-problem", "inbox-undo", "inbox-active-undo",
    "inbox-form-error", "archive-empty", "trash", "trash-active", "message", "message-form-error",
    "mailboxes", "mailboxes-form-error", "confirm-empty-trash", "confirm-delete-mailbox", "error-404",
    "signin", "mail", "mail-text", "mail-html", "mail-headers", "mail-remote", "mail-remote-shown",
    "mailboxes-address-error",
]


@pytest.fixture(scope="module", params=viewing.VIEWPORTS, ids=lambda v: v.name)
def viewport_browser(request):
    driver = make_driver(javascript=True)
    viewing.apply(driver, request.param)
    yield driver, request.param
    driver.quit()


def run_axe(driver):
    driver.execute_script(AXE)
    result = driver.execute_async_script(RUN_AXE, WCAG_21_AA)
    assert "error" not in result, result
    return result


@pytest.mark.parametrize("name", STATE_NAMES)
def test_axe_finds_no_wcag_21_aa_violations(viewport_browser, servers, name):
    driver, viewport = viewport_browser
    server, locked, states = servers
    state = states[name]
    viewing.show(driver, locked if state.signin else server, state)
    scheme = driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
    assert scheme == viewport.dark, "the colour scheme is emulated"
    assert driver.execute_script("return innerWidth") == viewport.width
    result = run_axe(driver)
    print(f"axe {result['version']} {name} {viewport.name}: {len(result['violations'])} violations, "
          f"incomplete {json.dumps({r['id']: r['count'] for r in result['incomplete']})}")
    assert not result["violations"], json.dumps(result["violations"], indent=2, ensure_ascii=False)


# --- What axe does not check -------------------------------------------------------------------


@pytest.fixture(scope="module")
def phone():
    driver = make_driver(javascript=False)
    viewing.apply(driver, viewing.VIEWPORTS[0])
    yield driver
    driver.quit()


def test_each_checkbox_is_named_after_its_message(phone, servers):
    server, _, states = servers
    viewing.show(phone, server, states["inbox-active"])
    rows = phone.find_elements(By.CSS_SELECTOR, "#messages li")
    assert len(rows) >= 5
    for row in rows:
        subject = row.find_element(By.CSS_SELECTOR, ".subject").get_attribute("textContent")
        box = row.find_element(By.CSS_SELECTOR, "input[name=selected]")
        assert box.accessible_name == f"Select “{subject}”"
        assert box.aria_role == "checkbox"


def test_the_count_is_a_polite_live_region_and_in_the_title(phone, servers):
    server, _, states = servers
    viewing.show(phone, server, states["inbox-active"])
    count = phone.find_element(By.ID, "selection-count")
    assert count.get_attribute("aria-live") == "polite"
    assert count.get_attribute("textContent").strip() == "2 Selected"
    assert phone.title.startswith("2 Selected — Inbox")


def test_notices_after_an_action_are_status_messages(phone, servers):
    server, _, states = servers
    for name in ("inbox-undo", "inbox-active-undo"):
        viewing.show(phone, server, states[name])
        notice = phone.find_element(By.ID, "notice")
        assert notice.get_attribute("role") == "status"
        assert "moved to Trash" in notice.text
        assert phone.find_element(By.ID, "undo").accessible_name == "Undo"


def focused(driver):
    return driver.switch_to.active_element


def tab(driver, times=1):
    for _ in range(times):
        focused(driver).send_keys(Keys.TAB)
    return focused(driver)


def test_the_skip_link_comes_first_and_leads_to_the_list(phone, servers):
    server, _, states = servers
    viewing.show(phone, server, states["inbox"])
    phone.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    skip = focused(phone)
    assert skip.get_attribute("class") == "skip-link"
    box = skip.rect
    assert box["y"] >= 0 and box["height"] >= 44, "the focused skip link is on screen"
    skip.send_keys(Keys.ENTER)
    WebDriverWait(phone, 5).until(lambda d: d.current_url.endswith("#content"))
    search = tab(phone)
    assert search.get_attribute("id") == "q", "the next Tab lands on the search field"
    first = tab(phone, 5)
    assert first.get_attribute("class") == "row-link", "past Search and the three filters, Tab lands on the first message"


@pytest.mark.parametrize("selector", ["#messages a.row-link", "#edit", "#mailboxes a"])
def test_keyboard_focus_is_visible(phone, servers, selector):
    server, _, states = servers
    viewing.show(phone, server, states["inbox"])
    target = phone.find_element(By.CSS_SELECTOR, selector)
    phone.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    for _ in range(40):
        if focused(phone) == target:
            break
        tab(phone)
    assert focused(phone) == target
    assert target.value_of_css_property("outline-style") == "solid"
    assert float(target.value_of_css_property("outline-width").removesuffix("px")) >= 2


def test_keyboard_focus_on_a_checkbox_is_visible(phone, servers):
    server, _, states = servers
    viewing.show(phone, server, states["inbox-active"])
    box = phone.find_elements(By.CSS_SELECTOR, "input[name=selected]")[0]
    phone.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    for _ in range(40):
        if focused(phone) == box:
            break
        tab(phone)
    assert focused(phone) == box
    assert box.value_of_css_property("outline-style") == "solid"


TARGETS = ("#messages a, #messages button, #messages input[type=checkbox], #messages select, "
           "#toolbar a, #toolbar button, #toolbar select, .bar a, .bar button, #notice button, "
           "#mailboxes a, .trash-actions a, .compose summary, .mail-views a")


# Every control's box, measured as the page lays it out (hidden ones have no box).
MEASURE = """
return [...document.querySelectorAll(arguments[0])]
  .filter(element => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== "hidden")
  .map(element => {
    const box = element.getBoundingClientRect();
    return {what: element.tagName.toLowerCase() + " “" + (element.getAttribute("aria-label")
                  || element.textContent.trim()) + "”", width: box.width, height: box.height};
  });
"""


@pytest.mark.parametrize("name", ["inbox", "inbox-transient", "inbox-active", "inbox-active-undo",
                                  "trash", "trash-active", "message", "archive-empty", "mail", "mail-html"])
def test_touch_targets_are_at_least_44_by_44_on_a_phone(phone, servers, name):
    server, _, states = servers
    viewing.show(phone, server, states[name])
    boxes = phone.execute_script(MEASURE, TARGETS)
    assert len(boxes) >= 3
    small = [f'{box["what"]}: {box["width"]:.1f}×{box["height"]:.1f}'
             for box in boxes if box["width"] < 44 or box["height"] < 44]
    assert not small, "\n".join(small)


@pytest.mark.parametrize("name", ["inbox-form-error", "message-form-error", "mailboxes-form-error",
                                  "mailboxes-address-error"])
def test_a_refused_form_brings_its_problem_on_screen_and_focuses_the_field(phone, servers, name):
    server, _, states = servers
    viewing.show(phone, server, states[name])
    problems = phone.find_element(By.ID, "form-errors")
    assert problems.get_attribute("role") == "alert"
    field = focused(phone)
    assert field.get_attribute("aria-invalid") == "true"
    height = phone.execute_script("return innerHeight")
    for element in (problems, field):
        box = phone.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element)
        assert 0 <= box["top"] and box["bottom"] <= height, f"{element.get_attribute('id')} is on screen"
