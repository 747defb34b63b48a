#!/usr/bin/env bash
# Perft speed: `makruk perft` against Fairy-Stockfish's `go perft` on the same
# position and depth, one thread each, best of N runs. Prints both rates and
# the ratio. Usage: bench/perft_vs_fairy.sh [DEPTH] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
depth=${1:-6}
runs=${2:-3}

scripts/install-deps.sh
if ! command -v fairy-stockfish >/dev/null && [ ! -x /usr/games/fairy-stockfish ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fairy-stockfish
fi
fsf=$(command -v fairy-stockfish || echo /usr/games/fairy-stockfish)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target makruk >/dev/null

now() { date +%s%N; }
best() {  # best(ns...) -> smallest
  printf '%s\n' "$@" | sort -n | head -n 1
}

ours=() theirs=()
for ((i = 0; i < runs; i++)); do
  t0=$(now)
  nodes=$(build/makruk perft "$depth" 2>/dev/null | tail -n 1)
  ours+=($(($(now) - t0)))
  t0=$(now)
  fnodes=$(printf 'setoption name UCI_Variant value makruk\nposition startpos\ngo perft %s\nquit\n' "$depth" |
    "$fsf" | sed -n 's/^Nodes searched: //p')
  theirs+=($(($(now) - t0)))
done
if [ "$nodes" != "$fnodes" ]; then
  echo "node counts differ: makruk $nodes, fairy-stockfish $fnodes" >&2
  exit 1
fi
ns_ours=$(best "${ours[@]}")
ns_theirs=$(best "${theirs[@]}")
awk -v n="$nodes" -v a="$ns_ours" -v b="$ns_theirs" -v d="$depth" 'BEGIN {
  printf "Makruk start position, perft %d: %d nodes\n", d, n
  printf "makruk perft:          %8.1f M nodes/s (%.3f s)\n", n / a * 1000, a / 1e9
  printf "fairy-stockfish perft: %8.1f M nodes/s (%.3f s)\n", n / b * 1000, b / 1e9
  printf "ratio: %.1f\n", b / a
}'
