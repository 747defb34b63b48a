#!/usr/bin/env bash
# docs/architecture.md names every source folder: each folder under src/
# and src/server/, and web/, must appear there as `path/`. Fails, naming
# the folders it lacks, when one is added without a word there.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
doc="$root/docs/architecture.md"
missing=()
for dir in "$root"/src/*/ "$root"/src/server/*/ "$root"/web/; do
  rel=${dir#"$root"/}
  grep -qF "\`$rel\`" "$doc" || missing+=("$rel")
done
# The web client's feature folders (web/src/X/, named as `X/` there).
for dir in "$root"/web/src/*/; do
  name=$(basename "$dir")
  [ "$name" = pieces ] && continue  # drawings, not code
  grep -qF "\`$name/\`" "$doc" || missing+=("web/src/$name/")
done
if ((${#missing[@]})); then
  echo "docs/architecture.md does not name: ${missing[*]}" >&2
  exit 1
fi
echo "docs/architecture.md names every source folder"
