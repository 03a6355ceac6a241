"""No dependency logs through the user's logging at INFO: an --embed-font figure under logging.basicConfig(INFO)."""

import subprocess
import sys

SCRIPT = """
import logging, sys
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record)
logging.basicConfig(level=logging.INFO, handlers=[Keep()])
import attnviz
svg = attnviz.figure([[1, 0], [0, 1]], [[1, 0], [0, 1]], tokens=["猫", "ж"], embed_font=True).svg()
assert "@font-face" in svg
print(len(records), sorted({r.name for r in records if r.levelno < logging.WARNING}))
"""


def test_embedding_a_font_logs_nothing_at_info():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "0" and result.stderr == ""


def test_a_level_the_user_sets_is_kept():
    script = SCRIPT.replace("import attnviz", "logging.getLogger('fontTools').setLevel(logging.INFO)\nimport attnviz")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[0]) > 10  # fontTools' own INFO lines, as asked for


def test_a_sphinx_build_with_an_embedded_font_prints_no_fonttools_lines(tmp_path):
    """The issue's case: a conf.py that logs at INFO, one --embed-font figure: only Sphinx's own lines."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("import logging\nlogging.basicConfig(level=logging.INFO)\n"
                                 "extensions = ['attnviz.integrations.sphinx']\n", encoding="utf-8")
    (src / "index.rst").write_text("Home\n====\n\n.. attnviz::\n   :embed-font: true\n   :tokens: 猫 the ж\n",
                                   encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-E", str(src), str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "fontTools" not in output and "@font-face" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
