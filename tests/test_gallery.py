"""The gallery: every entry renders cleanly, docs/gallery holds what `attnviz gallery` writes, and
docs/gallery-commands.rst shows each entry with its command. `make golden` rewrites docs/gallery after a change."""

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from attnviz.publish.gallery import ENTRIES, make
from clirun import run_cli
from conftest import svg_text
from test_layout import assert_clean

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs" / "gallery"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_gallery_entry_is_current_and_clean(entry):
    fig = make(entry)
    assert_clean(fig.layout())
    svg = fig.svg() + "\n"
    path = DOCS / f"{entry.name}.svg"
    if os.environ.get("ATTNVIZ_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path} differs; run `make golden` if intended"
    assert entry.title in svg_text(svg)


def run(*args):
    result = run_cli(*args)
    return SimpleNamespace(returncode=result.code, stdout=result.stdout, stderr=result.stderr)


def test_the_docs_show_every_entry_with_its_command():
    readme = (ROOT / "docs" / "gallery-commands.rst").read_text(encoding="utf-8")
    flat = " ".join(readme.split())  # a command may wrap in the rst list
    for entry in ENTRIES:
        assert f".. image:: gallery/{entry.name}.svg" in readme, entry.name
        if entry.args:
            assert entry.command in flat, entry.command
    assert sorted(p.stem for p in DOCS.glob("*.svg")) == sorted(e.name for e in ENTRIES)


def test_gallery_command_writes_every_figure(tmp_path):
    result = run("gallery", str(tmp_path / "g"))
    assert result.returncode == 0, result.stderr
    specs = [e for e in ENTRIES if e.spec]
    count = len(ENTRIES) + len(specs)
    assert result.stderr.startswith(f"attnviz: {count} of {count} figures written to {tmp_path / 'g'} in ")
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == sorted(
        [f"{e.name}.svg" for e in ENTRIES] + [f"{e.name}.toml" for e in specs])
    for entry in specs:  # a panel entry's spec is written beside it: `attnviz render NAME.toml` redraws it
        spec = tmp_path / "g" / f"{entry.name}.toml"
        assert spec.read_text(encoding="utf-8") == entry.spec
        redrawn = run("render", str(spec), "-o", "-")
        assert redrawn.stdout == (DOCS / f"{entry.name}.svg").read_text(encoding="utf-8")
    for entry in ENTRIES:
        assert (tmp_path / "g" / f"{entry.name}.svg").read_text(encoding="utf-8") == \
            (DOCS / f"{entry.name}.svg").read_text(encoding="utf-8")
