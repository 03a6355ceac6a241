"""Every bad input ends in exit 2, one line `attnviz: error: <where>: <what>`, and untouched output."""

import os
import shlex
import subprocess
import sys
import time

import pytest
from clirun import run_cli

SPECS = {
    "ragged.toml": "q = [[1, 0], [1]]\nk = [[1, 0], [0, 1]]\n",
    "dims.toml": "q = [[1, 0]]\nk = [[1, 0, 0]]\n",
    "empty.toml": "",
    "empty-q.toml": "q = []\nk = [[1]]\n",
    "word.toml": 'q = [["one"]]\nk = [[1]]\n',
    "nan.toml": "q = [[nan]]\nk = [[1]]\n",
    "inf.toml": "q = [[inf]]\nk = [[1]]\n",
    "zero-den.toml": 'q = [["1/0"]]\nk = [[1]]\n',
    "huge.toml": "q = [[1e999999999]]\nk = [[1]]\n",
    "huge-int.toml": f"q = [[{'9' * 5000}]]\nk = [[1]]\n",
    "highlight-out.toml": "q = [[1]]\nk = [[1]]\nhighlight = [[2, 1]]\n",
    "highlight-bad.toml": 'q = [[1]]\nk = [[1]]\nhighlight = ["diagonal"]\n',
    "typo.toml": "q = [[1]]\nkk = [[1]]\n",
    "typo-title.toml": 'q = [[1]]\nk = [[1]]\ntitel = "x"\n',
    "wrong-type.toml": 'q = [[1]]\nk = [[1]]\ntitle = 3\n',
    "tokens-type.toml": 'q = [[1]]\nk = [[1]]\ntokens = "a"\n',
    "tokens-count.toml": 'q = [[1], [2]]\nk = [[1], [2]]\ntokens = ["a"]\n',
    "control.toml": 'q = [[1]]\nk = [[1]]\ntokens = ["a\\u0007b"]\n',
    "syntax.toml": "q = [[1, 0]\nk = [[1]]\n",
    "syntax.json": '{"q": [[1]],\n "k": [[1]],,}\n',
    "array.json": "[1, 2]\n",
    "nan.json": '{"q": [[NaN]], "k": [[1]]}\n',
    "too-many.toml": "q = [" + ", ".join(["[1]"] * 65) + "]\nk = [[1]]\n",
    "too-long.toml": 'q = [[1]]\nk = [[1]]\ntokens = ["' + "x" * 101 + '"]\n',
    "digits.toml": 'q = [["1234567890123456789012345678901234567890123"]]\nk = [[1]]\n',
    "panels.toml": "q = [[1]]\nk = [[1]]\n[[panel]]\nq = [[1]]\nk = [[1]]\n",
    "arranged.toml": 'q = [[1]]\nk = [[1]]\narrange = "row"\n',
}

CASES = [
    # (args, spec file to create, expected message after "attnviz: error: ")
    (["ragged.toml"], "ragged.toml", "ragged.toml: q: vector 2 has 1 entries but vector 1 has 2"),
    (["dims.toml"], "dims.toml", "dims.toml: q and dims.toml: k: q vectors have 2 entries but k vectors have 3"),
    (["empty.toml"], "empty.toml", "empty.toml: missing required key 'q' (query vectors)"),
    (["empty-q.toml"], "empty-q.toml", "empty-q.toml: q: no vectors given"),
    (["word.toml"], "word.toml", "word.toml: q: vector 1: 'one' is not a number"),
    (["nan.toml"], "nan.toml", "nan.toml: q: vector 1: NaN is not a finite number"),
    (["inf.toml"], "inf.toml", "inf.toml: q: vector 1: Infinity is not a finite number"),
    (["zero-den.toml"], "zero-den.toml", "zero-den.toml: q: vector 1: '1/0' divides by zero"),
    (["huge.toml"], "huge.toml", "huge.toml: q: vector 1: '1E+999999999' is a number of about 1,000,000,000 digits exactly; the limit is 40"),
    (["huge-int.toml"], "huge-int.toml", "huge-int.toml:1: a number of 5,000 characters or more; numbers are limited to 40 digits"),
    (["highlight-out.toml"], "highlight-out.toml",
     "highlight-out.toml: highlight (2, 1): row 2 is outside the grid (rows 1..1)"),
    (["highlight-bad.toml"], "highlight-bad.toml",
     "highlight-bad.toml: highlight 'diagonal': expected I,J, row=I, mask, softmax=I, softmax, output=I or output"),
    (["typo.toml"], "typo.toml", "typo.toml: unknown key 'kk'; did you mean 'k'?"),
    (["typo-title.toml"], "typo-title.toml", "typo-title.toml: unknown key 'titel'; did you mean 'title'?"),
    (["wrong-type.toml"], "wrong-type.toml", "wrong-type.toml: title: expected a string, got an integer"),
    (["tokens-type.toml"], "tokens-type.toml", "tokens-type.toml: tokens: expected a list of strings, got a string"),
    (["tokens-count.toml"], "tokens-count.toml", "tokens-count.toml: tokens: 1 label for 2 tokens; give one per token"),
    (["control.toml"], "control.toml", "control.toml: tokens: label 1: control character U+0007 at position 2"),
    (["syntax.toml"], "syntax.toml", "syntax.toml:2:1: invalid TOML: Unclosed array"),
    (["syntax.json"], "syntax.json", "syntax.json:2:13: invalid JSON: Expecting property name enclosed in double quotes"),
    (["array.json"], "array.json", "array.json: expected a JSON object of keys, got a list"),
    (["nan.json"], "nan.json", "nan.json: invalid JSON: NaN is not a number attnviz accepts"),
    (["too-many.toml"], "too-many.toml", "too-many.toml: q: 65 vectors; the limit is 64"),
    (["too-long.toml"], "too-long.toml", "too-long.toml: tokens: label 1: 101 characters; the limit is 100"),
    (["digits.toml"], "digits.toml", "digits.toml: q: vector 1: '1234567890123456789012345678901234567890…' is a number of about 43 digits exactly; the limit is 40"),
    (["--panel", "panels.toml", "--panel", "panels.toml"], "panels.toml",
     "panels.toml: panel: a --panel file is one figure, without [[panel]] tables or arrange; give it as the spec "
     "to draw its panels"),
    (["--panel", "arranged.toml", "--panel", "arranged.toml"], "arranged.toml",
     "arranged.toml: arrange: a --panel file is one figure"),
    (["missing.toml"], None, "missing.toml: cannot read: No such file or directory"),
    (["--q", "1,2;3", "--k", "1,2"], None, "--q: vector 2 has 1 entries but vector 1 has 2"),
    (["--q", "nan", "--k", "1"], None, "--q: vector 1: 'nan' is not a number"),
    (["--q", "1e999999999", "--k", "1"], None, "--q: vector 1: '1e999999999' is a number of about 1,000,000,000 digits exactly"),
    (["--q", "", "--k", "1"], None, "--q: vector 1 is empty"),
    (["--highlight", "0,1"], None, "--highlight '0,1': row 0 is outside the grid (rows 1..3)"),
    (["--highlight", "3;3"], None, "--highlight '3;3': expected I,J, row=I, mask, softmax=I, softmax, output=I or output"),
    (["--tokens", "a b"], None, "--tokens: 2 labels for 3 tokens; give one per token"),
    (["--k-tokens", "a"], None, "--k-tokens: 1 label for 3 keys; give one per key"),
    (["--q-tokens", "a b c d"], None, "--q-tokens: 4 labels for 3 queries; give one per query"),
    (["--title", "a\x1bb"], None, "--title: control character U+001B at position 2"),
    (["--q", "1"], None, "--k: missing: --q gives the q vectors, so k is needed too"),
    (["--mystery"], None, "unrecognized arguments: --mystery"),
]


@pytest.mark.parametrize("args, spec, message", CASES, ids=[" ".join(c[0])[:40] for c in CASES])
def test_bad_input(tmp_path, monkeypatch, args, spec, message):
    monkeypatch.chdir(tmp_path)
    if spec:
        (tmp_path / spec).write_text(SPECS[spec], encoding="utf-8")
    target = tmp_path / "keep.svg"
    target.write_text("precious", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run_cli("render", *args, "-o", str(target))
    assert result.code == 2
    assert result.stderr.startswith(f"attnviz: error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert target.read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("spec", ["-", "spec.toml"])
def test_standard_input_closed(tmp_path, spec):
    """`attnviz render - <&-`: a spec from a closed standard input is the user's mistake; a file spec needs none."""
    (tmp_path / "spec.toml").write_text("q = [[2]]\nk = [[3]]\n", encoding="utf-8")
    done = subprocess.run(f"{shlex.quote(sys.executable)} -m attnviz render {spec} -o - <&-", shell=True,
                          cwd=tmp_path, capture_output=True, text=True)
    if spec == "-":
        assert (done.returncode, done.stderr) == (2, "attnviz: error: <stdin>: standard input is closed; give the "
                                                     "spec as a file, or pipe it in\n")
    else:
        assert done.returncode == 0 and "scores [6]" in done.stdout, done.stderr


def help_lines(columns):
    env = {**os.environ, "COLUMNS": columns}
    done = subprocess.run([sys.executable, "-m", "attnviz", "render", "--help"], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout.splitlines()


@pytest.mark.parametrize("columns", ["abc", "\u00b2", "\u0661\u0662", "99999999999999999999", "-5", "0", " 80"])
def test_a_bad_columns_value_is_ignored(monkeypatch, columns):
    """$COLUMNS sizes the help text only: a value that is not a small number must not break any command
    (`²` passes str.isdigit but not int()); the help is then as wide as with no $COLUMNS (no terminal: 80)."""
    monkeypatch.setenv("COLUMNS", columns)
    assert run_cli("render", "--q", "1", "--k", "1", "-o", "-").code == 0
    assert max(len(line) for line in help_lines(columns)) <= 78


@pytest.mark.parametrize("columns, widest", [("60", 58), ("120", 118)])
def test_a_good_columns_value_sizes_the_help(columns, widest):
    lines = help_lines(columns)
    assert max(len(line) for line in lines) <= widest and any(len(line) > widest - 15 for line in lines)


def test_binary_junk_spec(tmp_path):
    junk = tmp_path / "junk.toml"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    result = run_cli("render", str(junk), "-o", str(tmp_path / "x.svg"))
    assert result.code == 2
    assert result.stderr == f"attnviz: error: {junk}: not UTF-8 text (byte 1 is 0x89); a spec is a TOML or JSON file\n"


def test_oversized_spec_is_refused_unread(tmp_path):
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 2_000_000)
    result = run_cli("render", str(big), "-o", str(tmp_path / "x.svg"))
    assert result.code == 2 and "larger than 1,000,000 bytes" in result.stderr


def test_absurd_magnitude_is_refused_quickly():
    start = time.perf_counter()
    result = run_cli("render", "--q", "1e999999999", "--k", "1", "-o", "-")
    assert result.code == 2 and time.perf_counter() - start < 0.5


@pytest.mark.parametrize("command", ["render", "css"])
def test_directory_as_output(tmp_path, command):
    result = run_cli(command, "-o", str(tmp_path))
    assert (result.code, result.stderr) == (2, f"attnviz: error: -o {tmp_path}: cannot write: it is a folder; "
                                                "give a file name\n")
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_a_path_ending_in_a_slash_names_a_folder(tmp_path):
    result = run_cli("render", "-o", f"{tmp_path}/new/")
    assert (result.code, result.stderr) == (2, f"attnviz: error: -o {tmp_path}/new/: cannot write: it is a folder; "
                                                "give a file name\n")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_in_the_way_of_a_page_file(tmp_path):
    (tmp_path / "index.html").mkdir()
    result = run_cli("page", "-o", str(tmp_path))
    assert (result.code, result.stderr) == (2, f"attnviz: error: -o {tmp_path}: cannot write: "
                                                f"{tmp_path / 'index.html'}: it is a folder; give a file name\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]  # steps/ not written either
    (tmp_path / "index.html").rmdir()
    (tmp_path / "steps" / "03-summary.svg").mkdir(parents=True)  # the last file: found before the first is written
    assert run_cli("page", "-o", str(tmp_path)).code == 2
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["03-summary.svg", "steps"]


def test_spec_from_stdin_toml_and_json():
    toml = run_cli("render", "-", "-o", "-", stdin=b'q = [[1, 0]]\nk = [[0.5, 2]]\ntokens = ["<s>"]\n')
    assert toml.code == 0 and "row &lt;s&gt;: scores [1/2]" in toml.stdout
    json = run_cli("render", "-", "-o", "-", stdin=b'{"q": [[1, 0]], "k": [[0.1, 2]]}')
    assert json.code == 0 and "scores [1/10]" in json.stdout
    bad = run_cli("render", "-", "-o", "-", stdin=b'{"q": }')
    assert bad.code == 2 and bad.stderr.startswith("attnviz: error: <stdin>:1:7: invalid JSON")


def test_flags_override_spec_keys(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('q = [[1]]\nk = [[2]]\ntitle = "From spec"\n', encoding="utf-8")
    result = run_cli("render", str(spec), "--k", "3", "-o", "-")
    assert result.code == 0 and "scores [3]" in result.stdout and ">From spec<" in result.stdout


def test_internal_error_exits_1_with_a_bug_report_request(monkeypatch):
    import attnviz

    def broken(self, id_prefix=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(attnviz.Figure, "svg", broken)
    result = run_cli("render", "-o", "-")
    assert result.code == 1
    assert result.stderr == ("attnviz: internal error: RuntimeError: boom; please report this bug with the "
                             "command you ran (and --debug for the traceback)\n")
