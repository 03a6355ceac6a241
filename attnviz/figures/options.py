"""The figure options, each declared once: its name (a `figure()` keyword and a spec key), type and default
in the API, how a spec checks it, its command-line flag and help, and its Sphinx and MkDocs name.

Everything that lists figure options is made from `OPTIONS`: `figure()`'s keywords (tests check its
signature and `typing.FigureOptions` against it) and its record's defaults (`figure_options`), `io.spec.KEYS`
and `WALKTHROUGH_KEYS`, the argparse flags (cli.parser), the Sphinx directive's options (`:q-tokens:`) and the
MkDocs fence's keys. It imports no figure code, so `attnviz --help` can read it without loading any.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["Option", "OPTIONS", "BY_NAME", "API_OPTIONS", "SPEC_OPTIONS", "WALKTHROUGH_OPTIONS", "FIGURE_FLAGS",
           "LOOK_FLAGS", "PANEL_FLAGS", "WALKTHROUGH_FLAGS", "DECK_FLAGS", "SIGNATURE", "DEFAULTS", "figure_options"]


class Option:
    """One option. `scope`: "figure" (a `figure()` keyword, a spec key and a flag), "compose" (a spec key of a composed
    figure, not a `figure()` keyword), "api" (a keyword only), "walkthrough" (a key and flag only a walkthrough reads)
    or "deck" (an `attnviz slides` flag and spec key, a keyword of the deck model). For specs: `check` (the name of
    io.spec's check), `example` (a TOML line) and `expects` (in words, for errors and the reference). For the command
    line: `flag`, `dest` (when not the flag's name), `metavar`, `action` ("store", "append" or "switch"), `value` (how
    the flag's text is read: "whole", "path", "positive_number" or as it is), `dash_value` (its value may start with
    "-") and `help`. (A plain class, not a dataclass: the command's start-up does without `dataclasses`.)"""

    __slots__ = ("name", "type", "default", "scope", "check", "example", "expects", "flag", "dest", "metavar",
                 "action", "value", "dash_value", "help")

    def __init__(self, name: str, type: str | None = None, default: object = None, *, scope: str = "figure",  # noqa: PLR0913  the record's own constructor
                 check: str | None = None, example: str | None = None, expects: str | None = None,
                 flag: str | None = None, dest: str | None = None, metavar: str | None = None, action: str = "store",
                 value: str | None = None, dash_value: bool = False, help: str | None = None) -> None:
        self.name, self.type, self.default, self.scope = name, type, default, scope
        self.check, self.example, self.expects = check, example, expects
        self.flag, self.dest, self.metavar, self.action = flag, dest, metavar, action
        self.value, self.dash_value, self.help = value, dash_value, help

    @property
    def in_api(self) -> bool:
        """Whether `figure()` takes it as a keyword."""
        return self.scope in ("figure", "api")

    @property
    def in_spec(self) -> bool:
        """Whether a figure spec (and so a Sphinx option and a MkDocs block) takes it as a key."""
        return self.scope in ("figure", "compose")

    @property
    def directive_option(self) -> str:
        """Its name as a Sphinx directive option, `q-tokens` (the key's own name, `q_tokens`, works too)."""
        return self.name.replace("_", "-")

    def __repr__(self) -> str:
        return f"<Option {self.name}>"


TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping
    from typing import TypeGuard, Unpack

    from ..typing import FigureOptions

    class KeyOption(Option):
        """An option a spec reads as a key: it always has its check, its example and its words."""

        check: str
        example: str
        expects: str


def _keyed(option: Option) -> TypeGuard[KeyOption]:
    """True for an option a spec reads (an error, when the table is imported, if it lacks what a key needs)."""
    if option.check is None or option.example is None or option.expects is None:
        raise TypeError(f"option {option.name!r} is a spec key: give it a check, an example and expects")
    return True


#: Every option, in the order of the spec reference (io.spec.KEYS), then the API-only and walkthrough ones.
OPTIONS = (
    Option("panel", scope="compose", check="panels", example='panel = [{mask = "causal"}, {mask = "window=3"}]',
           expects="the panels of a composed figure: [[panel]] tables, each a figure spec; the other keys are "
                   "every panel's defaults",
           flag="--panel", dest="panels", metavar="SPEC", action="append", value="path",
           help="a figure spec drawn as one panel of this figure; repeatable (the other flags are every panel's "
                "defaults)"),
    Option("arrange", scope="compose", check="arrange", example='arrange = "row"',
           expects="how panels are placed: row, column or grid:C (C columns)", flag="--arrange", metavar="HOW",
           help="how panels are placed: row (default; a slide or column frame may rearrange it), column or grid:C "
                "(given, drawn so in a slide or column frame, or refused saying why)"),
    Option("panel_captions", scope="compose", check="panel_part", example='panel_captions = "shared"',
           expects="the mask-map panels' rule captions: auto, show, shared (said once when alike) or hide (left to "
                   "the description)", flag="--panel-captions", metavar="HOW",
           help="the panels' rule captions: auto (default: each its own; in a slide or column frame said once when "
                "alike), show, shared or hide"),
    Option("panel_subtitles", scope="compose", check="panel_part", example='panel_subtitles = "hide"',
           expects="the mask-map panels' subtitles: auto, show, shared (said once when alike) or hide (left to the "
                   "description)", flag="--panel-subtitles", metavar="HOW",
           help="the panels' subtitles: auto (default: shown; hidden in a slide or column frame), show, shared or "
                "hide"),
    Option("panel_legend", scope="compose", check="panel_legend", example='panel_legend = "hide"',
           expects="the panels' one legend: shared (default) or hide", flag="--panel-legend", metavar="HOW",
           help="the panels' one legend: shared (default) or hide"),
    Option("view", type="View", default="full", check="text", example='view = "mask"',
           expects="what the figure draws: full, scores (no captions), mask (the mask map) or heads (the heads "
                   "schematic)", flag="--view",
           metavar="VIEW",
           help="full (default: vectors, scores, captions), scores (vectors and the score grid, no captions), "
                "mask (the mask map, to 1,024 tokens) or heads (with --q-heads: which KV head each query head reads)"),
    Option("n", type="int | None", default=None, check="whole_number", example="n = 512",
           expects="tokens per axis of a mask map drawn without vectors", flag="--n", metavar="N", value="whole",
           help="with --view mask: N tokens, no vectors needed"),
    Option("shape", type="Shape | None", default=None, check="shape", example='shape = "4x12"',
           expects="queries × keys of a mask map drawn without vectors", flag="--shape", metavar="QxK",
           help="with --view mask: queries × keys, e.g. 4x12 (decoding), no vectors needed"),
    Option("q", type="Vectors | None", default=None, check="vectors", example="q = [[1, 0], [0, 1], [1, 1]]",
           expects="query vectors", flag="--q", metavar="VECTORS", dash_value=True,
           help='query vectors, e.g. "1,0; 0,1; 1,1" (entries: integers, fractions like -3/4, decimals like 0.5)'),
    Option("k", type="Vectors | None", default=None, check="vectors", example='k = [[1, 0], [0, 1], ["1/2", 0.5]]',
           expects="key vectors", flag="--k", metavar="VECTORS", dash_value=True,
           help="key vectors, same form as --q"),
    Option("q_heads", type="Sequence[Vectors] | None", default=None, check="head_vectors",
           example="q_heads = [[[1, 0], [0, 1]], [[1, 1], [0, 1]]]",
           expects="query vectors per query head (instead of q): several heads, one panel each", flag="--q-heads",
           metavar="HEADS", dash_value=True,
           help='query vectors per query head, heads separated by "|": "1,0; 0,1 | 1,1; 0,1" (instead of --q: one '
                "panel per head)"),
    Option("k_heads", type="Sequence[Vectors] | None", default=None, check="head_vectors",
           example="k_heads = [[[1, 0], [0, 1]]]",
           expects="key vectors per KV head (with q_heads); query head h reads KV head ⌊h/(H/G)⌋", flag="--k-heads",
           metavar="HEADS", dash_value=True,
           help="key vectors per KV head, same form (with --q-heads); query head h reads KV head ⌊h/(H/G)⌋"),
    Option("v_heads", type="Sequence[Vectors] | None", default=None, check="head_vectors",
           example="v_heads = [[[1], [2]]]",
           expects="value vectors per KV head (with q_heads)", flag="--v-heads", metavar="HEADS", dash_value=True,
           help="value vectors per KV head, same form (with --q-heads)"),
    Option("head_masks", type="Sequence[MaskSpec] | None", default=None, check="head_masks",
           example='head_masks = ["window=4", "window=16,dilation=4"]',
           expects="one mask per query head (instead of mask, with q_heads), or with view = \"mask\" and n or "
                   "shape one mask map per head side by side (Sparse Transformer's two heads)",
           flag="--head-mask", dest="head_masks", metavar="MASK", action="append", dash_value=True,
           help="one query head's own mask, repeated once per head in order (with --q-heads; or with --view mask "
                "and --n: the heads' mask maps side by side)"),
    Option("tokens", type="Labels | None", default=None, check="strings", example='tokens = ["<s>", "the", "cat"]',
           expects="labels for both axes", flag="--tokens", metavar="LABELS", dash_value=True,
           help='labels for both axes, separated by spaces: "<s> the cat" (for labels with spaces, use a spec file)'),
    Option("q_tokens", type="Labels | None", default=None, check="strings", example='q_tokens = ["the", "cat"]',
           expects="labels for the query rows", flag="--q-tokens", metavar="LABELS", dash_value=True,
           help="labels for the query rows, separated by spaces"),
    Option("k_tokens", type="Labels | None", default=None, check="strings", example='k_tokens = ["<s>", "the", "cat"]',
           expects="labels for the key columns", flag="--k-tokens", metavar="LABELS", dash_value=True,
           help="labels for the key columns, separated by spaces"),
    Option("highlight", type="HighlightSpec | None", default=None, check="highlight",
           example='highlight = [[3, 3], "softmax=3"]',
           expects="targets computed this step", flag="--highlight", metavar="TARGET", action="append",
           dash_value=True,
           help='mark as computed this step: "I,J" (a cell), "row=I", "mask", "softmax=I", "softmax", "output=I" '
                'or "output" (with --v); repeatable'),
    Option("mask", type="MaskSpec", default="causal", check="masks",
           example='mask = {any = ["window=3,symmetric", "global=1,8"]}',
           expects='the mask ("window=3 | global=1"), a list of masks that all must keep a cell, or a table '
                   "{all|any|not = ...}",
           flag="--mask", metavar="MASK", action="append", dash_value=True,
           # engine.mask_grammar.FAMILY_HELP's words (--help imports no engine; tests/test_mask_table.py checks)
           help="causal (default), none (or full), window=W[,symmetric][,dilation=D], global=J,J,..., "
                "prefix=P[,P,...][,documents=ID,...], chunk=C[,offset=O], segments=ID,ID,... (causal), "
                "documents=ID,ID,... (bidirectional), padding=J,J,..., keys=J,J,... (key columns), random=R,seed=S "
                "(R keys a row), sink=S (the first S keys), matrix=ROW;ROW;... (rows of 0/1), "
                "tree=PARENT,PARENT,...[,prompt=P] (a token tree: each its parent, -1 the prompt); combined with & "
                '(both), | (either), ~ or ! (not) and parentheses, e.g. "window=3,symmetric | global=1"; repeatable: '
                "a cell is kept only when every mask keeps it"),
    Option("sparse", type="str | None", default=None, check="text", example='sparse = "moba=2,2"',
           expects="a mask computed from Q and K: moba=B,K (MoBA: blocks of B keys, K a query counting its own) or "
                   "nsa=L,D,S,N,W (NSA: compression block l, stride d, selection block l', top n, window w)",
           flag="--sparse", metavar="SELECTION",
           help="the mask computed from Q and K: moba=B,K (MoBA's gate q·mean(K_block), blocks of B keys, top K "
                "counting the own block) or nsa=L,D,S,N,W[,initial=I][,local=R] (NSA: compression block l, stride d, "
                "selection block l', top n counting I initial and R local blocks, window w); the figure adds the "
                "gate scores (MoBA) or the three branches (NSA) as panels"),
    Option("mask_name", type="str | None", default=None, check="text", example='mask_name = "local + summary"',
           expects="the mask's name as the caption says it", flag="--mask-name", metavar="NAME", dash_value=True,
           help="the mask's name in the caption and title (any mask; a matrix's default is 'explicit'); a family's "
                "name (causal, sliding window, window=3, ...) must keep that family's cells"),
    Option("mask_rule", type="str | None", default=None, check="text", example='mask_rule = "j=1, or i-2<j<=i"',
           expects="the rule the mask keeps, as the caption says it", flag="--mask-rule", metavar="RULE",
           dash_value=True, help="the rule the caption says the mask keeps (any mask): written in attnviz's rule "
                                 "language (j<=i, i-2<j<=i, |i-j|<2, j in {1,3}, and, or, not) it is checked on "
                                 "every cell, else drawn marked 'as given, not checked'"),
    Option("align", type="Align", default="top-left", check="text", example='align = "bottom-right"',
           expects="the causal diagonal when keys outnumber queries: top-left or bottom-right", flag="--align",
           metavar="CORNER",
           help="where the causal diagonal starts when keys outnumber queries: top-left (default, as PyTorch's "
                "is_causal) or bottom-right"),
    Option("scale", type="ScaleSpec | None", default=None, check="number_or_text", example='scale = "sqrt"',
           expects="the logits' scale: sqrt (S/√d) or an exact factor", flag="--scale", metavar="FACTOR",
           dash_value=True,
           help="logits S/√d with sqrt, or R·S with an exact number R"),
    Option("bias", type="BiasSpec | None", default=None, check="string_or_strings", example='bias = "alibi=1/2"',
           expects="a bias added to the logits, or a list of them", flag="--bias", metavar="BIAS", action="append",
           dash_value=True,
           help="added to the logits: alibi=M (slope M, e.g. 1/2, 2^-3, 2^(-1/2) or head:H/N), "
                "matrix=ROW;ROW;... or t5=NUM_BUCKETS,MAX_DISTANCE[,values=B0,B1,...] (T5's relative-position "
                "buckets, bidirectional unless the mask is causal; without values the bias is named b[bucket]; "
                "--show bias draws each cell's bucket); repeatable"),
    Option("sink", type="SinkSpec | None", default=None, check="number_or_name", example='sink = "s"',
           expects="a sink logit in every row's softmax denominator: an exact number (0 is the quiet softmax) or a "
                   "name; with q_heads, one per head: \"s1 | s2\"", flag="--sink", metavar="S", dash_value=True,
           help="a sink logit in every softmax denominator, e^x/(e^S+Σe^x): an exact number (0: the quiet softmax, "
                "softmax plus one) or a name like s; per head \"s1 | s2\""),
    Option("sigmoid", type="SinkSpec | None", default=None, check="number_or_name", example='sigmoid = "-ln(n)"',
           expects="sigmoid attention's bias b, w = σ(L + b) with no row sum: an exact number, -ln(N) or -ln(n) "
                   "(n each row's unmasked keys)", flag="--sigmoid", metavar="B", dash_value=True,
           help="sigmoid attention, w=σ(L+B) per cell, no row sum: B an exact number, -ln(N) or -ln(n) (n the row's "
                "unmasked keys)"),
    Option("softcap", type="ScaleSpec | None", default=None, check="number_or_name", example='softcap = "50"',
           expects="a soft cap c on the logits, c·tanh(L/c) before the mask and softmax (Gemma 2: 50)",
           flag="--softcap", metavar="C", help="soft-cap the logits at C: C·tanh(L/C) before the softmax "
                                               "(Gemma 2's 50, Grok-1's 30)"),
    Option("differential", type="SinkSpec | None", default=None, check="number_or_name", example='differential = "λ"',
           expects="differential attention's λ (an exact number or a name), with two query heads: softmax(A1) − "
                   "λ·softmax(A2)", flag="--differential", metavar="LAMBDA", dash_value=True,
           help="with two query heads (--q-heads, --k-heads): draw A1, A2 and A1 − LAMBDA·A2, LAMBDA an exact "
                "number or a name"),
    Option("v", type="Vectors | None", default=None, check="vectors", example="v = [[1, 0], [0, 1], [1, 1]]",
           expects="value vectors, one per key", flag="--v", metavar="VECTORS", dash_value=True,
           help="value vectors, one per key: the figure writes each output"),
    Option("decimals", type="int | None", default=None, check="whole_number", example="decimals = 2",
           expects="round every input (q, k, v) to N decimals; the figure says so", flag="--decimals", metavar="N",
           value="whole",
           help="round every entry of q, k and v to N decimals (exactly, half to even); needed for floats of more "
                "than 6 significant digits, such as a model's tensors"),
    Option("softmax", type="SoftmaxForm", default="expanded", check="text", example='softmax = "normalizer"',
           expects="how named weights are written: expanded, normalizer or grouped", flag="--softmax", metavar="FORM",
           help="how named weights are written: expanded (default), normalizer or grouped"),
    Option("weights", type="str", default="named", check="text", example='weights = "decimal=3"',
           expects="named (exact), or decimal=N for rounded weights marked ≈", flag="--weights", metavar="FORM",
           help="named (default, exact) or decimal=N: weights rounded to N places, marked ≈"),
    Option("show", type="Show", default="scores", check="text", example='show = "logits"',
           expects="what the grid's cells show: scores or logits (bias: the bias matrix as a grid beside the scores)",
           flag="--show", metavar="VALUES",
           help="what the grid shows: scores (default) or logits; bias adds the bias matrix as a grid beside the "
                "scores"),
    Option("index_base", type="IndexBase", default=1, check="whole_number", example="index_base = 0",
           expects="where labels, captions, rules and highlights start counting: 1 (default) or 0",
           flag="--index-base", metavar="0|1", value="whole",
           help="count labels, captions, rules and --highlight from 1 (default, the seed) or 0 (PyTorch, "
                "attention-gym)"),
    Option("elide", type="bool", default=False, check="bool", example="elide = true",
           expects="draw the first and last rows and columns, with ⋮ ⋯ ⋱ for the rest (to 1,024 tokens)",
           flag="--elide", action="switch",
           help="full and scores views: draw the first 4 and last 2 rows and columns (and every highlighted one), "
                "with ⋮ ⋯ ⋱ for the rest; up to 1,024 tokens"),
    Option("x_title", type="str | None", default=None, check="text", example='x_title = "key position j"',
           expects="the mask map's key-axis title", flag="--x-title", metavar="TEXT",
           help='the mask map\'s key-axis title (default "key j")'),
    Option("y_title", type="str | None", default=None, check="text", example='y_title = "query position i"',
           expects="the mask map's query-axis title", flag="--y-title", metavar="TEXT",
           help='the mask map\'s query-axis title (default "query i")'),
    Option("title", type="str | None", default=None, check="text", example='title = "Causal attention"',
           expects="the figure's title", flag="--title", dash_value=True,
           help="figure title (default: the seed's)"),
    Option("subtitle", type="str | None", default=None, check="text", example='subtitle = "Three tokens."',
           expects="the subtitle, also the SVG's <desc>", flag="--subtitle", dash_value=True,
           help="figure subtitle, also its <desc> (default: the seed's)"),
    Option("theme", type="ThemeName", default="light", check="text", example='theme = "dark"',
           expects="the colour theme", flag="--theme", metavar="NAME",
           help="light (default), dark, print (greyscale), contrast (high contrast) or auto (follows the viewer's "
                "light or dark setting)"),
    Option("frame", type="FrameName", default="doc", check="text", example='frame = "slide"',
           expects="where the figure lands: doc, slide, slide-4:3, column, column-wide, column:WIDTH or doc:PX",
           flag="--frame", metavar="FRAME",
           help="doc (default: the web figure), slide (16:9, text ≥ 16 px at 1,280×720), slide-4:3, column "
                "(a 3.3-inch paper column, text ≥ 7 pt), column-wide (7 inches), or either at a width: "
                "column:3.5in, column:3.18in, column-wide:18cm; doc:740 (a docs page's content, 740 CSS px wide, "
                "text ≥ 12 px)"),
    Option("color_by", type="ColorBy", default="none", check="text", example='color_by = "part"',
           expects="none or part: whether a mask map colours each part of a union", flag="--color-by",
           metavar="WHAT",
           help="none (default) or part: a mask map colours each part of a union (a | b) by the first part "
                "that keeps the cell, one legend entry a part"),
    Option("blocks", type="BlockSize | None", default=None, check="blocks", example="blocks = [4, 4]",
           expects="FlexAttention's block size B or (BQ, BK): each block outlined and classed full, partial or empty "
                   "as create_block_mask classes it", flag="--blocks", metavar="B|BQ,BK",
           help="outline FlexAttention's blocks of B (or BQ query rows by BK keys) on the mask map or score grid, "
                "each classed full (no mask call), partial (masked per element) or empty (skipped) as "
                "create_block_mask classes it, with the sparsity"),
    Option("dark_selector", type="str | None", default=None, check="text", example='dark_selector = "html.dark"',
           expects="with theme auto: the CSS selector of the page's own dark toggle (dark inside it, light elsewhere)",
           flag="--dark-selector", metavar="SELECTOR",
           help="with --theme auto: the CSS selector of the page's dark toggle, e.g. html.dark (default: the Furo, "
                "PyData, MkDocs Material and JupyterLab toggles, then the system's setting)"),
    Option("embed_font", type="bool", default=False, check="bool", example="embed_font = true",
           expects="whether to inline the font", flag="--embed-font", action="switch",
           help="inline the font (subset to the figure's characters) as an @font-face, so the figure looks the "
                "same in every browser; librsvg, CairoSVG, Inkscape and resvg ignore it: for print, attnviz's own "
                "PDF or PNG (-o fig.pdf), which always draw with the bundled DejaVu"),
    Option("id_prefix", type="str | None", default=None, scope="api"),
    Option("flash", scope="walkthrough", check="block", example="flash = [2, 2]",
           expects="FlashAttention tiles, Br query rows by Bc key columns", flag="--flash", metavar="BR,BC",
           help="FlashAttention: one step per Br×Bc tile (Br query rows, Bc key columns) with the running max m "
                "and normaliser ℓ, then the proof that the tiled softmax is the one-shot softmax"),
    Option("flash_order", scope="walkthrough", check="text", example='flash_order = "fa1"',
           expects="the loop order: fa2 (outer over query blocks) or fa1 (outer over key blocks)",
           flag="--flash-order", metavar="ORDER",
           help="with --flash: fa2 (default; outer loop over query blocks) or fa1 (outer over key blocks)"),
    Option("split_kv", scope="walkthrough", check="chunk", example="split_kv = 2",
           expects="Flash-Decoding's chunk size C: the keys in chunks of C, computed side by side, then combined",
           flag="--split-kv", metavar="C",
           help="Flash-Decoding (split-KV): the keys in chunks of C computed side by side, one step per chunk with "
                "its own m_c, ℓ_c and partial output, then the combine step (m = max m_c, ℓ = Σ e^(m_c−m)·ℓ_c)"),
    Option("aspect", scope="deck", flag="--aspect", metavar="16:9|4:3",
           help="attnviz slides: the slides' shape, 16:9 (default, 13.333 × 7.5 in) or 4:3 (10 × 7.5 in)"),
    Option("steps", scope="deck", flag="--steps", metavar="RANGES",
           help="attnviz slides: only these steps, e.g. 1-3,7,10 (default: every step)"),
    Option("author", scope="deck", flag="--author", metavar="TEXT", dash_value=True,
           help="attnviz slides: a title slide with this author (--title and --date add one too)"),
    Option("date", scope="deck", flag="--date", metavar="TEXT", dash_value=True,
           help="attnviz slides: a title slide with this date"),
    Option("step_seconds", scope="deck", flag="--step-seconds", metavar="S", value="positive_number",
           help="attnviz slides -f svg-animated: seconds each step shows (default 3)"),
    Option("decode", scope="walkthrough", check="count", example="decode = 3",
           expects="the number of prompt tokens; the rest are decoded one by one with a KV cache", flag="--decode",
           metavar="P",
           help="KV-cache decoding: the first P tokens are the prompt (one prefill step), then one step per "
                "generated token, with the cache before and after"),
)

BY_NAME = {option.name: option for option in OPTIONS}
#: `figure()`'s keywords besides q and k, in no particular order (its signature gives the order).
API_OPTIONS = tuple(option for option in OPTIONS if option.in_api)
#: The keywords `figure()` names itself (its overloads tell its return types apart by them); the others are its
#: `**options` (`attnviz.typing.FigureOptions`), at these DEFAULTS in the record `figure_options` makes.
SIGNATURE = ("q", "k", "v", "view", "q_heads", "k_heads", "v_heads", "head_masks")
DEFAULTS = {option.name: option.default for option in API_OPTIONS if option.name not in SIGNATURE}
#: The keys of a figure spec, in the reference's order.
SPEC_OPTIONS = tuple(option for option in OPTIONS if option.in_spec and _keyed(option))
#: Keys only a walkthrough reads.
WALKTHROUGH_OPTIONS = tuple(option for option in OPTIONS if option.scope == "walkthrough" and _keyed(option))


def figure_options(given: Mapping[str, object], names: Collection[str] = DEFAULTS.keys(),
                   **changes: Unpack[FigureOptions]) -> FigureOptions:
    """The frozen record a figure is made from: `figure()`'s `**options` as `given` (those in `names`; with
    `changes`), every other one at its default. An unknown name is refused as Python refuses an unknown keyword."""
    if unknown := (given.keys() | changes.keys()) - DEFAULTS.keys():
        raise TypeError(f"figure() got an unexpected keyword argument {min(unknown)!r}")
    taken = {name: value for name, value in given.items() if name in names}
    return MappingProxyType({**DEFAULTS, **taken, **changes})  # type: ignore[return-value]  # the TypedDict's keys


# The order the flags appear in `--help`: what a figure shows, then how it looks.
#: Every figure-making command's flags (`attnviz walkthrough` leaves out --highlight).
FIGURE_FLAGS = ("view", "n", "shape", "index_base", "elide", "color_by", "blocks", "x_title", "y_title", "q", "k",
                "q_heads", "k_heads", "v_heads", "head_masks", "tokens", "q_tokens", "k_tokens", "highlight", "mask",
                "sparse", "mask_name", "mask_rule", "align", "scale", "bias", "sink", "sigmoid", "softcap",
                "differential", "v", "decimals", "softmax", "weights", "show", "title", "subtitle")
#: How figures look, not what they say: also `attnviz page`'s.
LOOK_FLAGS = ("frame", "theme", "dark_selector", "embed_font")
#: `attnviz render`'s panels.
PANEL_FLAGS = ("panel", "arrange", "panel_captions", "panel_subtitles", "panel_legend")
#: Which walkthrough (`attnviz walkthrough` and `slides`).
WALKTHROUGH_FLAGS = ("flash", "flash_order", "decode", "split_kv")
#: A deck's own options (`attnviz slides`; `publish.deck.model.from_sections`'s keywords of the same names).
DECK_FLAGS = ("aspect", "steps", "author", "date", "step_seconds")
