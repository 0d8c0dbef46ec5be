"""A mail's HTML in real Chromium: its scripts, handlers, remote images and forms do nothing and
load nothing (the network log and a listening decoy both say so); its own inline image shows;
links open outside the frame; an attachment downloads byte for byte. Remote images load only
after a click on "Load remote images", for that message only, and still run no script. With the
script on, the message page keeps its full date while the list shows short ones; at 390 px a
row shows sender and subject first and nothing overflows."""
import re
import http.server
import json
import smtplib
import threading
from email.message import EmailMessage
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import gallery
import mailroom_server


class Decoy:
    """An HTTP server on loopback that records every request it gets: the place hostile mail
    tries to reach."""

    def __init__(self):
        self.hits = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.end_headers()
                self.wfile.write(b"GIF89a")

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def hostile_mail(decoy):
    message = EmailMessage()
    message["From"] = "Mallory <mallory@evil.test>"
    message["To"] = "desk@office.test"
    message["Subject"] = "Your parcel is waiting"
    message.set_content("Plain words for the text view.\n")
    message.add_alternative(f"""<html><head>
<meta http-equiv="refresh" content="0;url={decoy.url('/refresh')}">
<link rel="stylesheet" href="{decoy.url('/stylesheet')}">
<style>@import url({decoy.url('/import')}); body {{ background: url({decoy.url('/background')}) }}</style>
</head><body>
<h1 id="greeting">Hello</h1>
<script>document.getElementById("greeting").textContent = "script ran"; fetch("{decoy.url('/fetch')}");</script>
<img id="remote" src="{decoy.url('/pixel.gif')}" width="1" height="1" alt="">
<img id="broken" src="missing.png" alt="broken" onerror="this.alt='onerror ran'; fetch('{decoy.url('/onerror')}')">
<img id="logo" src="cid:logo@office.test" alt="logo">
<form id="form" action="{decoy.url('/form')}" method="post"><input name="card" value="1234"><button id="go">Send</button></form>
<iframe id="inner" src="{decoy.url('/frame')}" title="inner"></iframe>
<a id="out" href="{decoy.url('/link')}">Track my parcel</a>
</body></html>""", subtype="html")
    message.get_payload()[1].add_related(gallery.PIXEL, "image", "png", cid="<logo@office.test>", filename="logo.png")
    return message


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    decoy = Decoy()
    server = mailroom_server.start(smtp=True)
    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # Sandboxed frames stay in the page's process, so their requests are in the page's network log.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--disable-features=IsolateSandboxedIframes"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        with smtplib.SMTP("127.0.0.1", server.smtp_port) as smtp:
            smtp.send_message(hostile_mail(decoy), "mallory@evil.test", ["desk@office.test"])
            rich = gallery.rich_mail()
            smtp.send_message(rich, "scanner@office.test", ["desk@office.test"])
        client = gallery.Client(server)
        rich_id, hostile_id = gallery.message_ids(client)[:2]
        yield driver, server, decoy, downloads, hostile_id, rich_id, rich
    finally:
        driver.quit()
        server.stop()
        decoy.close()


def network_log(driver):
    """What the browser's network log says since the last call: each URL asked for, with
    whether a response came back and why it was blocked, if it was."""
    requests = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            requests[params["requestId"]] = {"url": params["request"]["url"], "answered": False, "blocked": None}
        elif message["method"] == "Network.responseReceived" and params["requestId"] in requests:
            requests[params["requestId"]]["answered"] = True
        elif message["method"] == "Network.loadingFailed" and params["requestId"] in requests:
            requests[params["requestId"]]["blocked"] = params.get("blockedReason") or params.get("errorText")
    return list(requests.values())


def test_the_html_runs_nothing_and_loads_nothing_but_its_own_image(setup):
    driver, server, decoy, _, hostile, _, _ = setup
    network_log(driver)
    driver.get(server.url(f"/messages/{hostile}?keep=unread&view=html"))
    frame = driver.find_element(By.ID, "mail-html")
    assert frame.get_attribute("sandbox") == "allow-popups allow-popups-to-escape-sandbox"
    driver.switch_to.frame(frame)
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
        and d.execute_script("return document.getElementById('logo').complete"))
    assert driver.find_element(By.ID, "greeting").text == "Hello", "the script did not run"
    assert driver.execute_script("return document.getElementById('logo').naturalWidth") == 1, "its cid: image shows"
    assert driver.execute_script("return document.getElementById('remote').naturalWidth") == 0
    assert driver.find_element(By.ID, "broken").get_attribute("alt") == "broken", "onerror did not run"
    driver.find_element(By.ID, "go").click()
    driver.switch_to.default_content()
    # Whatever the click could have started is over once the page has loaded something after it.
    driver.get(server.url(f"/messages/{hostile}?keep=unread"))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "message"))
    log = network_log(driver)
    own = f"http://127.0.0.1:{server.port}/"
    foreign = [request for request in log if not request["url"].startswith((own, "data:"))]
    # The mail asked for the decoy in many ways; the policy blocked every one before it left.
    assert {request["url"] for request in foreign} >= {decoy.url("/pixel.gif"), decoy.url("/stylesheet")}, log
    assert all(not request["answered"] and request["blocked"] for request in foreign), foreign
    assert decoy.hits == []
    # Mailroom's own links to stored bytes carry the database's tag (?v=...).
    answered = {request["url"].split("?")[0] for request in log if request["answered"]}
    assert server.url(f"/messages/{hostile}/html") in answered
    assert server.url(f"/messages/{hostile}/parts/0") in answered, "its own cid: image loaded"


def test_the_html_view_comes_first_and_the_text_is_one_click_away(setup):
    driver, server, _, _, hostile, _, _ = setup
    driver.get(server.url(f"/messages/{hostile}?keep=unread"))
    assert driver.find_element(By.ID, "view-html").get_attribute("aria-current") == "page"
    assert driver.find_element(By.ID, "mail-html").get_attribute("sandbox") == "allow-popups allow-popups-to-escape-sandbox"
    driver.find_element(By.ID, "view-text").click()
    WebDriverWait(driver, 10).until(lambda d: "view=text" in d.current_url)
    assert "Plain words for the text view." in driver.find_element(By.CSS_SELECTOR, ".message-body").text
    assert not driver.find_elements(By.TAG_NAME, "iframe")
    assert driver.find_element(By.ID, "view-text").get_attribute("aria-current") == "page"


def test_a_link_in_the_mail_opens_outside_the_frame(setup):
    driver, server, decoy, _, hostile, _, _ = setup
    page = server.url(f"/messages/{hostile}?keep=unread&view=html")
    driver.get(page)
    before = set(driver.window_handles)
    driver.switch_to.frame(driver.find_element(By.ID, "mail-html"))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "out"))
    driver.find_element(By.ID, "out").click()
    WebDriverWait(driver, 10).until(lambda d: len(d.window_handles) > len(before))
    driver.switch_to.default_content()
    assert driver.current_url == page
    WebDriverWait(driver, 10).until(lambda d: "/link" in decoy.hits)
    for handle in set(driver.window_handles) - before:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(next(iter(before)))
    decoy.hits.clear()


def test_an_attachment_downloads_byte_for_byte(setup):
    driver, server, _, downloads, _, rich_id, rich = setup
    driver.get(server.url(f"/messages/{rich_id}?keep=unread"))
    link = driver.find_element(By.LINK_TEXT, "floor-plan.pdf")
    link.click()
    target = Path(downloads) / "floor-plan.pdf"
    WebDriverWait(driver, 20).until(lambda _: target.exists() and not list(Path(downloads).glob("*.crdownload")))
    sent = next(part for part in rich.iter_attachments() if part.get_filename() == "floor-plan.pdf").get_content()
    assert target.read_bytes() == sent
    assert driver.current_url == server.url(f"/messages/{rich_id}?keep=unread"), "the page stays"


def frame_loaded(driver):
    """Waits until the page's mail frame has loaded its document."""
    driver.switch_to.frame(driver.find_element(By.ID, "mail-html"))
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete"
                                    and d.find_elements(By.ID, "greeting"))


def test_remote_images_load_only_on_the_persons_click_and_only_for_that_message(setup):
    driver, server, decoy, _, hostile, rich_id, _ = setup
    decoy.hits.clear()
    driver.get(server.url(f"/messages/{hostile}?keep=unread"))
    notice = driver.find_element(By.ID, "remote-notice")
    assert "Remote images in this message were blocked." in notice.text
    frame_loaded(driver)
    driver.switch_to.default_content()
    assert decoy.hits == [], "nothing remote by default"

    driver.find_element(By.ID, "load-remote-images").click()
    WebDriverWait(driver, 10).until(lambda d: "images=remote" in d.current_url)
    frame_loaded(driver)
    assert driver.find_element(By.ID, "greeting").text == "Hello", "the script still did not run"
    driver.switch_to.default_content()
    WebDriverWait(driver, 10).until(lambda _: "/pixel.gif" in decoy.hits)
    # Images only: no script, handler, stylesheet, form or frame reached the decoy.
    assert set(decoy.hits) <= {"/pixel.gif", "/background"}, decoy.hits
    assert "Remote images in this message are shown." in driver.find_element(By.ID, "remote-notice").text

    # Not remembered: the message again, and another, block remote images.
    decoy.hits.clear()
    driver.get(server.url(f"/messages/{hostile}?keep=unread"))
    frame_loaded(driver)
    driver.switch_to.default_content()
    assert driver.find_element(By.ID, "load-remote-images")
    driver.get(server.url(f"/messages/{rich_id}?keep=unread"))
    assert not driver.find_elements(By.ID, "remote-notice"), "a mail without remote images says nothing"
    assert decoy.hits == []


def test_the_message_page_keeps_its_full_date_with_the_script_on(setup):
    driver, server, _, _, _, rich_id, _ = setup
    driver.get(server.url(f"/messages/{rich_id}?keep=unread"))
    meta = driver.find_element(By.CSS_SELECTOR, ".message-meta time")
    # The script has run once it has given the time its title.
    WebDriverWait(driver, 10).until(lambda _: meta.get_attribute("title"))
    full = re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4} at \d{2}:\d{2}")
    assert full.match(meta.text), meta.text
    sent = driver.find_element(By.CSS_SELECTOR, "#mail-addresses time")
    assert full.match(sent.text) and "2026" in sent.text, sent.text
    driver.get(server.url("/mailboxes/inbox"))
    row = driver.find_element(By.CSS_SELECTOR, f"#message-{rich_id} time")
    WebDriverWait(driver, 10).until(lambda _: row.get_attribute("title"))
    assert re.fullmatch(r"\d{2}:\d{2}|[A-Z][a-z]{2} \d{1,2}(, \d{4})?", row.text), row.text


ROW_BOXES = """
const row = document.getElementById(arguments[0]);
const box = (selector) => row.querySelector(selector).getBoundingClientRect().toJSON();
return {author: box(".author"), subject: box(".subject"), details: box(".row-details"), row: row.getBoundingClientRect().toJSON(),
        clip: box(".clip"), recipient: box(".recipient"), size: box(".size"),
        width: innerWidth, scroll: document.documentElement.scrollWidth};
"""


def test_a_row_on_a_phone_shows_sender_and_subject_first_and_nothing_overflows(setup):
    driver, server, _, _, _, rich_id, _ = setup
    driver.set_window_size(390, 844)
    try:
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return innerWidth") == 390)
        driver.get(server.url("/mailboxes/inbox"))
        boxes = driver.execute_script(ROW_BOXES, f"message-{rich_id}")
        assert boxes["scroll"] <= boxes["width"], "the page does not scroll sideways"
        assert boxes["author"]["top"] < boxes["subject"]["top"] < boxes["details"]["top"], boxes
        for part in ("author", "subject", "details", "recipient", "size", "clip"):
            assert boxes[part]["width"] > 0 and boxes[part]["left"] >= 0, part
            assert boxes[part]["right"] <= boxes["row"]["right"] + 0.5, part
        assert driver.find_element(By.CSS_SELECTOR, f"#message-{rich_id} .recipient").text == "To desk@office.test"
        assert driver.find_element(By.CSS_SELECTOR, f"#message-{rich_id} .clip").accessible_name == "Has attachments"
    finally:
        driver.set_window_size(1280, 900)
