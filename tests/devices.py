"""The browsers the tests open (a phone, a laptop: Playwright context options) and the
screenshots they save, for the browser tests (tests/e2e) and the fault tests (tests/faults)."""

from bench.servers import ARTIFACTS

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
SCREENSHOTS = ARTIFACTS / "screenshots"


class Shots:
    """Saves a named screenshot of a page into test-artifacts/screenshots/<test>/."""

    def __init__(self, name):
        self.folder = SCREENSHOTS / name
        self.folder.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def __call__(self, page, label):
        self.count += 1
        path = self.folder / f"{self.count:02d}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
