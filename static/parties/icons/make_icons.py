"""Renders the home-screen icons in this folder from ../die.svg, with Debian's Chromium.

Rerun after changing the die: `.venv/bin/python static/parties/icons/make_icons.py` from the
repository's root (needs /usr/bin/chromium and the Playwright of the test dependencies), then
look at the PNGs and commit them. Chromium draws the SVG exactly as the pages show it, so the
icons need no image library.

- icon-192.png, icon-512.png ("any"): the die on a transparent square, as the page's favicon.
- icon-maskable-512.png: full-bleed pink, the die's pips inside the central circle of 40% radius
  that Android keeps whatever shape it cuts (https://w3c.github.io/manifest/#icon-masks).
- apple-touch-icon-180.png: opaque (iOS fills transparency with black and rounds the corners
  itself), the die a little inside its square.
"""

from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
DIE = (HERE.parent / "die.svg").read_text()
PINK = "#c2185b"  # the die's own colour, so the die's corners vanish into a full-bleed square

# name: (size, die's size, background or None for transparent)
ICONS = {
    "icon-192.png": (192, 192, None),
    "icon-512.png": (512, 512, None),
    # The die's farthest pip edge is 12.9 of its 32 units from the centre: at 456 px that is
    # 184 px, inside the safe circle's 204.8 px with a margin.
    "icon-maskable-512.png": (512, 456, PINK),
    "apple-touch-icon-180.png": (180, 168, PINK),
}


def page_html(size, die, background):
    svg = DIE.replace("<svg ", f'<svg width="{die}" height="{die}" ', 1)
    return (
        f"<!doctype html><html><body style='margin:0;width:{size}px;height:{size}px;"
        f"background:{background or 'transparent'};display:flex;align-items:center;"
        f"justify-content:center'>{svg}</body></html>"
    )


def main():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for name, (size, die, background) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
            page.set_content(page_html(size, die, background))
            page.screenshot(path=str(HERE / name), omit_background=background is None)
            page.close()
            print(f"wrote {name} ({size}x{size})")
        browser.close()


if __name__ == "__main__":
    main()
