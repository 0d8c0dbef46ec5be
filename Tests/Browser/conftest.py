"""Fixtures: the real mailroom binary on a free port, and a real headless Chromium."""
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

import mailroom_server


@pytest.fixture
def mailroom():
    server = mailroom_server.start()
    yield server
    server.stop()


def make_driver(javascript, width=1280, height=900, flags=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", *flags):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.javascript_enabled = javascript
    return driver


@pytest.fixture(params=[False, True], ids=["no-js", "js"])
def browser(request):
    driver = make_driver(javascript=request.param)
    yield driver
    driver.quit()
