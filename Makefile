# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The demo and the docs get environments of their own, with only what they use (no torch, no test tools).
DEMO_BIN := .venv-demo/bin
DOCS_BIN := .venv-docs/bin

.PHONY: demo test check fuzz lint golden looks bench docs clean system-deps

$(BIN)/attnviz: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# attnviz and the decimal extra (the gallery draws rounded weights): the demo writes SVG and HTML, which need nothing more.
$(DEMO_BIN)/attnviz: pyproject.toml
	$(PYTHON) -m venv .venv-demo
	$(DEMO_BIN)/python -m pip install --quiet -e '.[decimal]'
	touch $@

# Sphinx alone: the site is drawn by attnviz's own directive.
$(DOCS_BIN)/sphinx-build: pyproject.toml
	$(PYTHON) -m venv .venv-docs
	$(DOCS_BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

demo: $(DEMO_BIN)/attnviz
	$(DEMO_BIN)/attnviz render
	$(DEMO_BIN)/attnviz page
	$(DEMO_BIN)/attnviz walkthrough
	$(DEMO_BIN)/attnviz gallery out/gallery -j auto

# Everything: lint, types (tests/test_typing.py runs mypy --strict over the whole package), every test.
test: $(BIN)/attnviz system-deps lint
	$(BIN)/python -m pytest -q

# The edit loop: each stage's own tests, the frame fitter's included (the `check` marker, tests/conftest.py),
# about a minute.
check: $(BIN)/attnviz
	$(BIN)/python -m pytest -q -m check tests

# The property tests with new random examples each run (the "fuzz" Hypothesis profile; `make test` and
# `make check` draw the same ones every run). FUZZ_EXAMPLES=N draws N per test (600).
fuzz: $(BIN)/attnviz
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q -m property tests

lint: $(BIN)/attnviz
	$(BIN)/python -m ruff check attnviz tests benchmarks docs tools

# Chromium (for the browser tests), DejaVu fonts and Cairo, from Debian's packages, when missing.
system-deps:
	bash tools/install-system-deps.sh

# The browser tests' figures in every theme as SVG, PNG and PDF in out/looks/, and the seed's deck in
# every slide format as its real tool shows it, PNGs in out/looks/slides/, and every measured figure in each
# frame but doc at the frame's size, PNGs in out/looks/frames/FRAME/ (tests/frame_cases.py): to look at.
looks: $(BIN)/attnviz system-deps
	$(BIN)/python tests/browser_gallery.py out/looks
	$(BIN)/python tests/frame_cases.py out/looks/frames
	cd tests && ../$(BIN)/python slide_looks.py ../out/looks/slides

# Rewrite the golden files (pretty-printed SVG with a PNG beside each, a slide and a column frame, TikZ and
# PowerPoint's slide XML: tests/golden/) and docs/gallery after an intended change; look at them before
# committing.
golden: $(BIN)/attnviz
	ATTNVIZ_UPDATE_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_golden.py tests/test_gallery.py

# Start-up first (`attnviz render` against a bare `python -c pass`, 30 paired runs; target 3x), then the rest.
bench: $(BIN)/attnviz
	-$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python benchmarks/bench_render.py
	$(BIN)/python benchmarks/bench_slides.py
	$(BIN)/python benchmarks/bench_views.py
	$(BIN)/python benchmarks/bench_forms.py

# attnviz's own docs, drawn by its own Sphinx directive; warnings are errors. -E: figures follow code changes.
docs: $(DOCS_BIN)/sphinx-build
	$(DOCS_BIN)/sphinx-build -E -W --keep-going -q -b html docs build/docs
	@echo "docs: build/docs/index.html"

clean:
	rm -rf $(VENV) .venv-demo .venv-docs out build dist
