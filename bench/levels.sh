#!/usr/bin/env bash
# Playing levels: each level against the level below it, from the balanced
# openings, both colours. Prints one result line per pair.
# Usage: bench/levels.sh [GAMES_PER_PAIR] [MOVETIME_MS] [VARIANT]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20}
movetime=${2:-100}
variant=${3:-makruk}

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target makruk >/dev/null

for level in 2 3 4 5 6 7 8; do
  lower=$((level - 1))
  result=$(build/makruk match --variant "$variant" --engine "build/makruk uci" --engine "build/makruk uci" \
    --name "level$level" --name "level$lower" --option1 "Skill Level=$level" --option2 "Skill Level=$lower" \
    --games "$games" --movetime "$movetime" --openings "bench/openings/$variant.txt" --concurrency 2 |
    grep -E "^(Score|Elo)" | tr '\n' ' ')
  echo "$result"
done
