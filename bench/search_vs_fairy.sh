#!/usr/bin/env bash
# Search speed: `makruk bench` against Fairy-Stockfish's own `bench` for
# makruk, one thread each, in the same run. Prints both rates and the ratio.
# Usage: bench/search_vs_fairy.sh [MAKRUK_DEPTH] [FAIRY_DEPTH]
set -euo pipefail
cd "$(dirname "$0")/.."
ours_depth=${1:-14}
theirs_depth=${2:-13}

scripts/install-deps.sh
if [ ! -x /usr/games/fairy-stockfish ] && ! command -v fairy-stockfish >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fairy-stockfish
fi
fsf=$(command -v fairy-stockfish || echo /usr/games/fairy-stockfish)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target makruk >/dev/null

ours=$(build/makruk bench "$ours_depth" | sed -n 's/^Nodes\/second *: //p')
theirs=$("$fsf" bench 16 1 "$theirs_depth" default depth makruk 2>&1 | sed -n 's/^Nodes\/second *: //p')
awk -v a="$ours" -v b="$theirs" 'BEGIN {
  printf "makruk bench:          %10d nodes/s\n", a
  printf "fairy-stockfish bench: %10d nodes/s\n", b
  printf "ratio: %.2f\n", a / b
}'
