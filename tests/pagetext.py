"""Reading a written page back: its text, its tags, its inline figures (stdlib only)."""

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SVG_NS = "{http://www.w3.org/2000/svg}"


class _Page(HTMLParser):
    """Every text node in <body>, in order, but a <style>'s (an auto figure's own rules): what a reader sees."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_body = False
        self.in_style = False
        self.body_text = []
        self.tags = []  # (tag, attrs dict) for every start tag, in order

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "body":
            self.in_body = True
        self.in_style = self.in_style or tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "body":
            self.in_body = False
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_body and not self.in_style:
            self.body_text.append(data)


def read_page(html):
    page = _Page()
    page.feed(html)
    page.close()
    return page


def squeeze(text):
    """The text with all whitespace removed (Unicode whitespace, no-break spaces included)."""
    return "".join(text.split())


def body_text(html):
    return "".join(read_page(html).body_text)


def inline_figures(html):
    """The page's figures (<svg class="attnviz">) parsed as XML, in order."""
    figures = []
    for match in re.finditer(r'<svg\b[^>]*\bclass="attnviz"', html):
        end = html.index("</svg>", match.start()) + len("</svg>")  # a figure holds no nested <svg>
        figures.append(ET.fromstring(html[match.start():end]))
    return figures


def computed(root):
    """What a figure highlights: ({(i, j): cell text}, [softmax rows])."""
    cells, rows = {}, []
    for g in root.iter(f"{SVG_NS}g"):
        classes = g.get("class", "").split()
        if "attnviz-computed" not in classes:
            continue
        if "attnviz-cell" in classes:
            cells[(int(g.get("data-q")), int(g.get("data-k")))] = "".join(g.itertext())
        elif "attnviz-softmax-row" in classes:
            rows.append(int(g.get("data-q")))
    return cells, rows


def docs_figures(html):
    """The figures a docs build inlined: (wrapper tag, parsed svg root), in page order."""
    found = re.findall(r'(<div class="attnviz-figure[^>]*>)(<svg .*?</svg>)</div>', html, flags=re.S)
    return [(wrapper, ET.fromstring(svg)) for wrapper, svg in found]


def cell_texts(root):
    """{(row, column): the cell's text} of a parsed figure."""
    cells = [g for g in root.iter(f"{SVG_NS}g") if "attnviz-cell" in g.get("class", "").split()]
    return {(int(g.get("data-q")), int(g.get("data-k"))): "".join(g.itertext()) for g in cells}
