#!/usr/bin/env bash
# Refresh the reveal.js files attnviz copies into every reveal.js deck, from the npm registry.
# Usage: tools/vendor-revealjs.sh [VERSION]   (default: the version in attnviz/vendor/reveal.js/VERSION)
set -euo pipefail
cd "$(dirname "$0")/.."
target=attnviz/vendor/reveal.js
version=${1:-$(cat "$target/VERSION")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "reveal.js@$version" >/dev/null && tar xzf reveal.js-*.tgz)
cp "$work/package/dist/reveal.js" "$work/package/dist/reveal.css" "$work/package/plugin/notes/notes.js" \
   "$work/package/LICENSE" "$target/"
echo "$version" > "$target/VERSION"
echo "vendored reveal.js $version into $target"
