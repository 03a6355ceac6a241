"""Directives for attnviz's own docs: references generated from the code, and examples shown twice.

- `attnviz-example`: its body (reStructuredText using `.. attnviz::`) shown as source, then built;
  the gallery and the tutorial use it, so every picture comes with the lines that drew it.
- `attnviz-spec-keys`: the table of figure keys, from `attnviz.spec.KEYS`.
- `attnviz-cli-help`: `attnviz <command> --help` for every command, from the argument parser.
- `attnviz-gallery`: every entry of `attnviz.gallery.ENTRIES` (what `attnviz gallery` draws), each
  as the `.. attnviz::` directive that draws it, so a new entry appears here by itself.
"""

import argparse
import inspect

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from attnviz.integrations import settings as embed
from attnviz.publish import gallery
from attnviz.io import spec
from attnviz.figures.options import OPTIONS
from attnviz.cli.commands import build_parser
from attnviz.integrations.sphinx import attnviz_figure

HELP_WIDTH = 76  # columns, so the help text is the same on every machine


class ExampleDirective(SphinxDirective):
    """Show the body as a reStructuredText code block, then build it."""

    has_content = True

    def run(self):
        source = "\n".join(self.content)
        code = nodes.literal_block(source, source, language="rst", classes=["attnviz-example-source"])
        self.set_source_info(code)
        built = nodes.container(classes=["attnviz-example"])
        nested_parse_with_titles(self.state, StringList(self.content, items=self.content.items), built)
        return [code, built]


class SpecKeysDirective(SphinxDirective):
    """A table: every spec key, its directive option, what it takes, an example."""

    def run(self):
        rows = [["key", "directive option", "value", "example (TOML)"]]
        for key, entry in spec.KEYS.items():
            option = f":{key.replace('_', '-')}:"
            rows.append([f"``{key}``", f"``{option}``", entry.expects, f"``{entry.example}``"])
        lines = [".. list-table::", "   :header-rows: 1", "   :widths: 12 16 30 42", ""]
        for row in rows:
            lines.append(f"   * - {row[0]}")
            lines.extend(f"     - {cell}" for cell in row[1:])
        container = nodes.container(classes=["attnviz-spec-keys"])
        self.state.nested_parse(StringList(lines, source="<attnviz-spec-keys>"), self.content_offset, container)
        return container.children


class CliHelpDirective(SphinxDirective):
    """`attnviz --help`, then each command's help, as literal blocks under their own rubrics."""

    def run(self):
        parser = build_parser()
        out = [self._block("attnviz --help", parser)]
        for action in parser._subparsers._group_actions:
            for name, command in action.choices.items():
                out.append(nodes.rubric("", f"attnviz {name}"))
                out.append(self._block(f"attnviz {name} --help", command))
        return out

    def _block(self, title, parser):
        parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=HELP_WIDTH)
        text = f"$ {title}\n{parser.format_help().rstrip()}"
        return nodes.literal_block(text, text, language="text")


#: Gallery groups: (title, name prefixes, a sentence); an entry goes in the first group it matches.
GROUPS = (
    ("Masks", ("mask-", "align-"),
     "A kept cell shows its score and a masked one says ``masked``; the badge names the mask and the note "
     "states its rule. Several masks combine (a cell is kept when every one keeps it): give them as a TOML "
     "list."),
    ("Scores: scale and bias", ("scale-", "bias-alibi"),
     "The softmax exponentiates the logits, scale times score plus bias, all exact (radicals in simplest "
     "form); ``:show: logits`` puts them in the grid."),
    ("Softmax captions and outputs", ("softmax-", "weights-", "values"),
     "How named weights are written, rounded weights marked ≈ (every printed digit correct), and outputs "
     "as weighted sums of value vectors."),
    ("Views and panels: published figures, redrawn", ("map-", "panels-", "view-", "bias-panel", "elided-"),
     "The mask map (``:view: mask``) to 1,024 tokens, panels composed side by side with aligned grids and "
     "one legend, the score table, the bias matrix beside the scores, and elision for long figures."),
    ("Heads: multi-head, grouped-query, multi-query", ("heads-",),
     "One panel per query head, each that head's exact figure; query head h reads KV head ⌊h/(H/G)⌋ "
     "(0-based), and the K and V a group shares are written once, in its first panel. ``:view: heads`` draws "
     "the schematic (each query head's line to its KV head); ``:head-masks:`` gives each head its own mask, "
     "drawn as mask maps side by side."),
    ("Mechanics: FlashAttention and KV-cache decoding", ("flash-", "decode-"),
     "One step of a walkthrough each: ``attnviz walkthrough --flash Br,Bc`` steps through FlashAttention's "
     "tiles, every tile outlined and each row's running maximum m, normaliser ℓ and rescale beside the grid; "
     "``--decode P`` through decoding with a KV cache, its slots drawn as a strip (a rolling buffer of W "
     "slots under a window of W), evicted keys darkened and keys not generated yet left empty."),
    ("More options", ("",), ""),
)


_DIRECTIVE_OPTION = {option.flag: option.directive_option for option in OPTIONS if option.flag}


class GalleryDirective(SphinxDirective):
    """One section per group of `attnviz.gallery.ENTRIES`, one subsection per entry."""

    def run(self):
        out = []
        placed = set()
        for title, prefixes, sentence in GROUPS:
            entries = [e for e in gallery.ENTRIES if e.name not in placed and e.name.startswith(prefixes)]
            if not entries:
                continue
            placed.update(e.name for e in entries)
            lines = [title, "-" * len(title), "", sentence, ""]
            for entry in entries:
                lines += [entry.title, "~" * len(entry.title), ""] + self._entry(entry) + [""]
            box = nodes.container()
            nested_parse_with_titles(self.state, StringList(lines, source="<attnviz-gallery>"), box)
            for section in box.findall(nodes.section):
                if section.get("attnviz_api_entry"):
                    section += self._api_figure(section["attnviz_api_entry"])
            out += box.children
        return out

    def _entry(self, entry):
        if entry.spec:  # a spec file with panels: show it, and draw it below
            return [f"``{entry.command}``, where ``{entry.name}.toml`` is:", "", ".. code-block:: toml", "",
                    *(f"   {line}" for line in entry.spec.splitlines()), "",
                    f".. attnviz-api-entry:: {entry.name}", ""]
        if not entry.args:  # made through the API: show the Python, draw it below
            return ["Made through the API (a mask can be any Python function of the 0-based query and key "
                    "positions), so there is no directive for it:", "", ".. code-block:: python", "",
                    *(f"   {line}" for line in inspect.getsource(gallery.dilated).splitlines()), "",
                    f"   v = {[[int(x) for x in row] for row in spec.parse_vectors(gallery.Q5, 'v')]}",
                    f"   attnviz.figure(v, v, mask=dilated, title={entry.title!r})", "",
                    f".. attnviz-api-entry:: {entry.name}", ""]
        if entry.step:  # a step of a walkthrough: the command, and its figure drawn below
            return [f"Step {entry.step} of:", "", ".. code-block:: sh", "", f"   V=\"{gallery.Q5}\"",
                    f"   {entry.command}", "", f".. attnviz-api-entry:: {entry.name}", ""]
        options, args = {}, list(entry.args)
        while args:  # --flag VALUE, or a bare --flag (--elide)
            flag = args.pop(0)
            value = args.pop(0) if args and not args[0].startswith("--") else ""
            # the directive's option is the key's (--head-mask gives head_masks, written :head-masks:)
            options.setdefault(_DIRECTIVE_OPTION.get(flag, flag.removeprefix("--")), []).append(value)
        options["title"] = [entry.title]
        lines = [".. attnviz-example::", "", "   .. attnviz::"]
        for name, values in options.items():
            text = values[0] if len(values) == 1 else "[" + ", ".join(f'"{v}"' for v in values) + "]"
            lines.append(f"      :{name}: {text}")
        lines.append(f"      :alt: {entry.title}.")
        return lines

    def _api_figure(self, name):
        entry = next(e for e in gallery.ENTRIES if e.name == name)
        figure = gallery.make(entry)
        prefix = embed.id_prefix(self.env.docname, self.env.new_serialno("attnviz") + 1)
        return attnviz_figure(svg=figure.svg(id_prefix=prefix), prefix=prefix, alt=entry.title, has_alt=True)


class ApiEntryDirective(SphinxDirective):
    """Marks the section of a gallery entry made through the API; `GalleryDirective` draws it there."""

    required_arguments = 1

    def run(self):
        self.state.parent["attnviz_api_entry"] = self.arguments[0]
        return []


def setup(app):
    app.add_directive("attnviz-example", ExampleDirective)
    app.add_directive("attnviz-spec-keys", SpecKeysDirective)
    app.add_directive("attnviz-cli-help", CliHelpDirective)
    app.add_directive("attnviz-gallery", GalleryDirective)
    app.add_directive("attnviz-api-entry", ApiEntryDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
