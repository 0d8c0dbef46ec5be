"""`make screenshots`: every state of every page at phone (390×844) and desktop (1280×800) width,
light and dark, as PNG files in screenshots/ (or the folder given as the first argument).

A fresh server is seeded through its own forms (Tests/Browser/gallery.py); a second one has a
password, for the sign-in page. Each file is named STATE-SIZE-SCHEME.png. `--narrow` adds the
list states at 320 px, the narrowest phone to check for overflow.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "Browser"))

import gallery  # noqa: E402
import mailroom_server  # noqa: E402
import viewing  # noqa: E402
from conftest import make_driver  # noqa: E402


def main():
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = Path(arguments[0] if arguments else ROOT / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    viewports = list(viewing.VIEWPORTS)
    if "--narrow" in sys.argv:
        viewports += [viewing.Viewport(f"narrow-{s}", 320, 640, s == "dark") for s in ("light", "dark")]
    server = mailroom_server.start(page_size=gallery.PAGE_SIZE, smtp=True)
    locked = mailroom_server.start(password="correct horse")
    # Phones draw scrollbars over the page only while scrolling: none in a still picture.
    driver = make_driver(javascript=False, flags=["--hide-scrollbars"])
    try:
        states = gallery.seed(server)
        for viewport in viewports:
            viewing.apply(driver, viewport)
            for state in states:
                viewing.show(driver, locked if state.signin else server, state)
                width = driver.execute_script("return document.documentElement.scrollWidth")
                if width > viewport.width:
                    print(f"warning: {state.name} is {width} px wide at {viewport.width} px")
                path = folder / f"{state.name}-{viewport.name}.png"
                driver.save_screenshot(str(path))
        print(f"{len(viewports) * len(states)} screenshots in {folder}")
    finally:
        driver.quit()
        server.stop()
        locked.stop()


if __name__ == "__main__":
    main()
