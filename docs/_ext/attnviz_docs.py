"""Directives for attnviz's own docs: references generated from the code, and examples shown twice.

- `attnviz-example`: its body (reStructuredText using `.. attnviz::`) shown as source, then built;
  the gallery and the tutorial use it, so every picture comes with the lines that drew it.
- `attnviz-spec-keys`: the table of figure keys, from `attnviz.spec.KEYS`.
- `attnviz-cli-help`: `attnviz <command> --help` for every command, from the argument parser.
"""

import argparse

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from attnviz import spec
from attnviz.cli import build_parser

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


def setup(app):
    app.add_directive("attnviz-example", ExampleDirective)
    app.add_directive("attnviz-spec-keys", SpecKeysDirective)
    app.add_directive("attnviz-cli-help", CliHelpDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
