#!/usr/bin/env bash
# An SPRT of the engine in this working tree against a baseline revision, on game
# pairs from an unbalanced book, at a fixed number of nodes a move (so the result
# does not depend on the machine's load), varied ±25% from pair to pair so that
# the book's openings, played again, give other games.
#
#   bench/sprt.sh [BASE_REV] [ELO0] [ELO1] [NODES] [VARIANT] [CONCURRENCY] [MAX_GAMES]
#   defaults:      HEAD       0      5      20000   makruk    2             40000
#
# The baseline is built from BASE_REV in build-sprt/base (a git worktree), the
# candidate from the working tree in build-sprt/new; only the engine (makruk-uci,
# or `makruk uci` for revisions without it). Games go to build-sprt/games.pgn, the
# running score to build-sprt/match.log.
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev=${1:-HEAD}
elo0=${2:-0}
elo1=${3:-5}
nodes=${4:-20000}
variant=${5:-makruk}
concurrency=${6:-2}
games=${7:-40000}
book=bench/openings/$variant-unbalanced.txt
jobs=$(nproc)

build_engine() {  # SOURCE_DIR BUILD_DIR: prints the engine's command
  local src=$1 dir=$2
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  if cmake --build "$dir" -j"$jobs" --target makruk-uci >/dev/null 2>&1; then
    echo "$(realpath "$dir")/makruk-uci"
  else
    cmake --build "$dir" -j"$jobs" --target makruk >/dev/null
    echo "$(realpath "$dir")/makruk uci"
  fi
}

mkdir -p build-sprt
rm -rf build-sprt/base-src build-sprt/games.pgn
git worktree prune
git worktree add --detach build-sprt/base-src "$base_rev" >/dev/null
trap 'git worktree remove --force build-sprt/base-src >/dev/null 2>&1 || true' EXIT
echo "sprt: building the baseline ($(git rev-parse --short "$base_rev")) and the candidate (working tree)"
base=$(build_engine build-sprt/base-src build-sprt/base)
new=$(build_engine . build-sprt/new)
echo "sprt: $nodes nodes a move, $variant, book $book, elo0 $elo0 elo1 $elo1"
build/makruk match --variant "$variant" --engine "$new" --engine "$base" --name new --name base \
  --nodes "$nodes" --nodes-vary 25 --openings "$book" --games "$games" --concurrency "$concurrency" \
  --sprt "$elo0,$elo1" --pgn build-sprt/games.pgn > build-sprt/match.log
tail -6 build-sprt/match.log
