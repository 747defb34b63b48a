#!/usr/bin/env bash
# The rules the code cites are in the repository: every "docs/rules.md §N" in
# the sources, tests and docs names a section docs/rules.md has, and nothing
# cites a rules file that is not there. Fails naming the places.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
doc="$root/docs/rules.md"
[ -f "$doc" ] || { echo "docs/rules.md is missing" >&2; exit 1; }
bad=()
while IFS= read -r hit; do
  file=${hit%%:*}
  for n in $(echo "$hit" | grep -oE 'docs/rules.md`? §[0-9]+' | grep -oE '[0-9]+$'); do
    grep -qE "^## $n\. " "$doc" || bad+=("$file: §$n")
  done
done < <(cd "$root" && grep -rnE 'docs/rules.md`? §[0-9]+' src web/src tests docs README.md 2>/dev/null || true)
# A bare rules file name in capitals (the one the project was started from is not here).
while IFS= read -r hit; do bad+=("$hit"); done < <(cd "$root" && grep -rnE '(^|[^/])RULES\.md' src web/src tests docs README.md --exclude=rules.sh 2>/dev/null || true)
if ((${#bad[@]})); then
  printf 'a rules reference that leads nowhere: %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "every rules reference names a section of docs/rules.md"
