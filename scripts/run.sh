#!/usr/bin/env bash
# Installs what is missing, builds, and runs the makruk command with the given
# arguments (by default a perft of the Makruk start position as a smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target makruk

if (($#)); then
  exec build/makruk "$@"
fi
echo "build/makruk is ready. Perft of the Makruk start position, depth 6:"
exec build/makruk perft 6
