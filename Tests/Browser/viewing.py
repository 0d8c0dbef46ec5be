"""Showing a gallery state in Chromium at a given size and colour scheme (tests and screenshots)."""
from dataclasses import dataclass

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


@dataclass(frozen=True)
class Viewport:
    name: str
    width: int
    height: int
    dark: bool

    @property
    def is_phone(self):
        return self.width < 768


PHONE, DESKTOP = (390, 844), (1280, 800)
VIEWPORTS = [
    Viewport(f"{size}-{scheme}", *dimensions, scheme == "dark")
    for size, dimensions in (("phone", PHONE), ("desktop", DESKTOP))
    for scheme in ("light", "dark")
]


def apply(driver, viewport):
    """Sizes the page's viewport exactly and emulates the colour scheme (it lasts across pages)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": viewport.width, "height": viewport.height, "deviceScaleFactor": 1,
        "mobile": viewport.is_phone,
    })
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if viewport.dark else "light"}],
    })


def navigate(driver, action):
    """Runs `action` (a click or a key press) and waits until the next page has replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    action()

    def replaced(_):
        try:
            page.tag_name
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            # Mid-navigation chromedriver may say the node left the document instead of "stale".
            if "does not belong to the document" in str(error):
                return True
            raise

    WebDriverWait(driver, 10).until(replaced, message="a new page loads")
    WebDriverWait(driver, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "body"), message="the new page has a body")


def show(driver, server, state):
    """Opens `state` of `server` in `driver`; a refused form is filled in and submitted."""
    driver.get(server.url(state.path))
    if not state.form:
        return
    form = driver.find_element(By.ID, state.form)
    for disclosure in form.find_elements(By.XPATH, "ancestor::details"):
        if disclosure.get_attribute("open") is None:
            disclosure.find_element(By.TAG_NAME, "summary").click()
    for name, value in state.typed.items():
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    navigate(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]").click)
