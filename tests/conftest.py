import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import settings

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"
SVG_NS = "{http://www.w3.org/2000/svg}"
collect_ignore_glob = ["data/*"]  # data, not tests: e.g. the scripts that tests/test_typing.py type-checks

settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def svg_text(svg):
    """The SVG's text nodes, every one of them, concatenated in document order."""
    return "".join(ET.fromstring(svg).itertext())


def element_text(element):
    """`svg_text` for an already parsed figure."""
    return "".join(element.itertext())


def svg_root(svg):
    return ET.fromstring(svg)


@pytest.fixture
def seed_line():
    return (DATA / "seed-figure-text.txt").read_text(encoding="utf-8").rstrip("\n")


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session (tests/browser.py); fails, never skips, when it is missing."""
    from playwright.sync_api import sync_playwright

    from browser import launch

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(device_scale_factor=1)
    yield context.new_page()
    context.close()
