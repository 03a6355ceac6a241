"""The gallery's real-model entries (publish.gallery.MODEL_ENTRIES): each on a slide, clean, and equal to
its committed SVG in docs/gallery/models (`ATTNVIZ_UPDATE_GOLDEN=1` rewrites them; look at them)."""

import json
import os
from pathlib import Path

import pytest

from attnviz.layout.frames import get_frame
from attnviz.publish.gallery import MODEL_ENTRIES, make_model
from clirun import run_cli
from test_layout import assert_clean

FOLDER = Path(__file__).parent.parent / "docs" / "gallery" / "models"


@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=[e.name for e in MODEL_ENTRIES])
def test_model_entry_is_current_clean_and_a_slide(entry):
    fig = make_model(entry)
    layout = fig.layout()
    assert_clean(layout)
    assert abs(layout.width / layout.height - get_frame("slide").aspect) < 1e-6
    svg = fig.svg() + "\n"
    path = FOLDER / f"{entry.name}.svg"
    if os.environ.get("ATTNVIZ_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path} differs; regenerate with ATTNVIZ_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("entry", MODEL_ENTRIES[:2], ids=[e.name for e in MODEL_ENTRIES[:2]])
def test_the_entry_command_draws_the_entry(entry, tmp_path):
    folder = tmp_path / entry.name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(dict(entry.config)))
    args = entry.command.replace("'", "").split()[2:]
    args[0] = str(folder / "config.json")
    out = tmp_path / "out.svg"
    result = run_cli("model", *args, "--title", entry.title, "-o", str(out))
    assert result.code == 0, result.stderr
    assert out.read_text(encoding="utf-8") == (FOLDER / f"{entry.name}.svg").read_text(encoding="utf-8")


@pytest.mark.parametrize("entry", MODEL_ENTRIES, ids=lambda e: e.name)
def test_a_model_figure_on_a_slide_keeps_every_text_at_the_floor(entry):
    """The panels fitted to the slide above the strip of layers: the exact 16:9 and no text under 16 px."""
    from attnviz.layout.frames import get_frame, text_floor_misses

    fig = make_model(entry)
    layout = fig.layout()
    assert layout.width / layout.height == pytest.approx(16 / 9, rel=1e-3)
    assert text_floor_misses(layout, get_frame(fig.frame)) == []
    svg = fig.svg()
    assert svg.count('class="attnviz-panel"') == len(fig.panels) and "data-layers=" in svg
