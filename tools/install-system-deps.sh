#!/usr/bin/env bash
# Install, from Debian's packages, what the tests need and a fresh machine may lack: Chromium
# (Playwright drives it; it never downloads a browser of its own), the DejaVu fonts the figures
# are measured with, Cairo for PNG/PDF, Java for the Nu HTML checker, TeX Live (pdflatex, Beamer,
# TikZ) for the slide tests, LibreOffice Impress to render pptx decks, and poppler's pdftoppm and
# pdftotext to look at and read compiled pages, and librsvg's rsvg-convert (how LaTeX's svg package and
# many converters draw SVG). Does nothing when all are there.
set -euo pipefail

missing=()
for package in chromium fonts-dejavu-core libcairo2 \
        texlive-latex-base texlive-latex-recommended texlive-pictures \
        libreoffice-impress poppler-utils librsvg2-bin; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: need ${missing[*]} (Debian package names) and apt-get is not here; install them" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
echo "install-system-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
