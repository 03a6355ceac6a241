import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import settings

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"
SVG_NS = "{http://www.w3.org/2000/svg}"
collect_ignore_glob = ["data/*"]  # data, not tests: e.g. the scripts that tests/test_typing.py type-checks

# Hypothesis: "ci" (the default) draws the same examples every run, so a red run is red again; "fuzz"
# (`make fuzz`, HYPOTHESIS_PROFILE=fuzz) draws new ones each run, many more, to find what "ci" does not.
settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True)
settings.register_profile("fuzz", deadline=None, max_examples=int(os.environ.get("FUZZ_EXAMPLES", "600")),
                          derandomize=False, print_blob=True)

#: The edit loop's tests (`make check`, about a minute): each stage's own tests, the frame fitter's included.
#: Each module here gets the `check` marker and its stage's marker; `make test` runs every test.
STAGE_OF_MODULE = {
    "test_exact": "numbers", "test_engine": "engine", "test_masks": "engine", "test_mask_rules": "engine",
    "test_logits": "engine", "test_flash": "engine", "test_alibi_scoremod": "engine",
    "test_captions": "words", "test_a11y": "words", "test_bidi": "words",
    "test_layout": "layout", "test_architecture": "layout", "test_frame_fit": "layout", "test_frame_layout": "layout",
    "test_frame_maps": "layout", "test_frame_sizes": "layout",
    "test_painter": "render", "test_xml": "render", "test_golden": "render",
    "test_figure": "figures", "test_options": "figures", "test_views": "figures",
    "test_output": "io", "test_moved_paths": "io", "test_document": "publish", "test_walk_steps": "publish",
    "test_cli_masks": "cli", "test_messages": "cli", "test_bad_input": "cli",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = getattr(item, "module", None)  # doctests have none
        stage = STAGE_OF_MODULE.get(module.__name__ if module else "")
        if stage:
            item.add_marker(pytest.mark.check)
            item.add_marker(getattr(pytest.mark, stage))
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)  # `make fuzz` runs these with the "fuzz" profile


settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def terminal_signals():
    """`preexec_fn` for a child that tests a signal: its handlers as a terminal gives them. Under `nohup`, a CI
    runner or `trap '' INT`, this run's SIGINT (and SIGHUP) arrive ignored, an ignored signal stays ignored
    across exec, and Python then installs no KeyboardInterrupt: the child sets its own, whatever it inherits."""
    import signal

    for name in ("SIGINT", "SIGHUP", "SIGTERM"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


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
