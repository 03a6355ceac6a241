"""The README (or a page of docs/) documents every spec key and every command-line flag."""

from pathlib import Path

from attnviz.cli.commands import build_parser
from attnviz.io.spec import KEYS

ROOT = Path(__file__).parent.parent
README = "\n".join(path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.rst"))]
                   ).replace("``", "`")


def test_every_spec_key_is_documented():
    missing = [key for key in KEYS if f"`{key}`" not in README]
    assert missing == []


def test_every_render_flag_is_documented():
    render = build_parser()._subparsers._group_actions[0].choices["render"]
    flags = [opt for action in render._actions for opt in action.option_strings if opt.startswith("--")]
    missing = [flag for flag in flags if flag not in README]
    assert missing == []
