#!/usr/bin/env bash
# Tables on demand with many stored tables: how soon the server answers after
# it starts, its memory while idle, and how long opening a cold table takes.
# Usage: bench/tables.sh [TABLES] [OPENS]
# The database (TABLES tables, made by bench/tables.cpp) is kept in
# build/bench-tables-TABLES/ and reused by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-1000000}
opens=${2:-2000}

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_BENCH=ON >/dev/null
cmake --build build -j"$(nproc)" --target makruk tables >/dev/null

data=build/bench-tables-$tables
if [ ! -f "$data/makruk.db.codes" ]; then
  rm -rf "$data" && mkdir -p "$data"
  build/tables make "$data/makruk.db" "$tables"
fi
echo "database: $(du -sh "$data/makruk.db" | cut -f1) for $tables tables"

rss() { awk '/VmRSS/ {printf "%.1f MB", $2 / 1024}' "/proc/$1/status"; }
port=18$((RANDOM % 900 + 100))
start=$(date +%s%N)
build/makruk serve --address 127.0.0.1 --port "$port" --data "$data" --web web/dist >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.01; done
echo "answering $(( ($(date +%s%N) - start) / 1000000 )) ms after start ($(grep -o '[0-9]* tables opened at start' "$data/server.log"))"
sleep 3
echo "idle: $(rss $server)"
build/tables open 127.0.0.1 "$port" "$data/makruk.db.codes" "$opens"
echo "after opening $opens tables: $(rss $server)"
