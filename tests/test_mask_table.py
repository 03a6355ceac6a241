"""The one table of mask families (`engine.mask_grammar.MASK_FAMILIES`) against everything that lists the
families: --mask's help, the reference's table, the grammar's error messages, and each family's entry
against what it binds. The property test (tests/test_mask_rules.py) and the FlexAttention parity test
(tests/test_mask_parity.py) check their own strategies against the table."""

import re
from pathlib import Path

import pytest

from attnviz.cli.commands import main
from attnviz.engine.mask_grammar import FAMILY_HELP, MASK_FAMILIES, parse_mask
from attnviz.engine.masks import resolve
from attnviz.figures.options import BY_NAME
from attnviz.numbers.exact import InputError

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference.rst"


def _words(text):
    return " ".join(text.split())


def test_the_mask_flag_help_lists_every_family_of_the_table(capsys):
    assert BY_NAME["mask"].help.startswith(FAMILY_HELP + "; combined with")
    with pytest.raises(SystemExit):
        main(["render", "--help"])
    help_text = _words(capsys.readouterr().out)
    for family in MASK_FAMILIES.values():
        assert _words(f"{family.form} {family.gloss}") in help_text, family.form


def _reference_rows():
    """The reference's mask table, as (mask, name in figure, keeps) rows cut at its columns."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    header = next(n for n, line in enumerate(lines) if line.startswith("``mask``") and "name in figure" in line)
    border = lines[header - 1]
    columns = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    rows = []
    for line in lines[header + 2:]:
        if line == border:
            return rows
        cells = [line[a:b2].strip() for (a, _), (b2, _) in zip(columns, columns[1:] + [(len(line), 0)])]
        rows.append(tuple(cells))
    raise AssertionError("the reference's mask table has no closing border")


def test_the_reference_table_has_each_family_s_rows_in_the_table_s_order():
    rows = _reference_rows()
    assert rows[:-1] == [row for family in MASK_FAMILIES.values() for row in family.rows]
    assert rows[-1][0] == "a Python callable (API)"


@pytest.mark.parametrize("kind", list(MASK_FAMILIES))
def test_each_entry_names_what_its_family_binds(kind):
    family = MASK_FAMILIES[kind]
    examples = {"causal": "causal", "none": "none", "window": "window=2", "global": "global=1", "prefix": "prefix=2",
                "chunk": "chunk=2", "segments": "segments=1,1,2,2", "documents": "documents=1,1,2,2",
                "padding": "padding=4", "keys": "keys=1", "random": "random=2,seed=3", "sink": "sink=2",
                "matrix": "matrix=1000;1100;1110;1111", "tree": "tree=-1,0,prompt=2"}
    option = parse_mask(examples[kind])
    assert option.kind == kind
    # the reference's name is the figure's (`none &`: padding alone is causal + padding)
    assert resolve(f"none & {examples[kind]}", 4, 4).name == family.rows[0][1]
    assert family.form.split("=")[0] == kind


@pytest.mark.parametrize("kind", [kind for kind, family in MASK_FAMILIES.items() if family.parse is not None])
def test_a_family_without_its_value_is_told_its_form(kind):
    with pytest.raises(InputError) as err:
        parse_mask(kind)
    assert str(err.value).endswith(f"'{kind}' needs a value: {MASK_FAMILIES[kind].form}")


def test_an_unknown_family_is_told_every_form():
    with pytest.raises(InputError) as err:
        parse_mask("snk=2")
    assert str(err.value).endswith("masks are " + ", ".join(family.form for family in MASK_FAMILIES.values()))
    assert "did you mean 'sink='?" in str(err.value)
