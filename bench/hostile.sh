#!/usr/bin/env bash
# Hostile-client benchmark: one `makruk serve` process with its default limits
# and its SQLite database (in a temporary folder), a normal pair of players,
# and one hostile case after another, all on loopback.
# Usage: bench/hostile.sh [--seconds S] [--case NAME]
# BUILD (default build) is the build folder, JOBS (default all cores) the
# number of compile jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}

scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMAKRUK_BENCH=ON >/dev/null
cmake --build "$build" -j"${JOBS:-$(nproc)}" --target makruk hostile >/dev/null

ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
port=18$((RANDOM % 900 + 100))
"$build"/makruk serve --address 127.0.0.1 --port "$port" --data "$data" >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
sleep 1
"$build"/hostile --port "$port" --server-pid "$server" --data "$data" "$@"
