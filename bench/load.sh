#!/usr/bin/env bash
# Load benchmark: one `makruk serve` process with its SQLite database (in a
# temporary folder) and the load generator on loopback.
# Usage: bench/load.sh [GAMES] [MOVES_PER_SECOND] [SECONDS] [DEFLATE] [WARMUP_SECONDS] [FULL_SYNC]
# DEFLATE=1: the clients take permessage-deflate (as browsers do). WARMUP: seconds
# after every game started at once that are not measured (reported apart). FULL_SYNC=1:
# the server runs with --sqlite-full-sync (every commit flushed to the disk).
# THREADS=N: the server's network threads (default 2). HUB_THREADS=N: its hub threads
# (default 1), which share the tables by code.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-5000}
rate=${2:-2000}
seconds=${3:-30}
deflate=${4:-0}
warmup=${5:-0}
full_sync=${6:-0}

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_BENCH=ON >/dev/null
cmake --build build -j"$(nproc)" --target makruk load >/dev/null

ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
port=18$((RANDOM % 900 + 100))
# Every client comes from 127.0.0.1: lift the per-address limits (the
# overall caps and every other defence stay as in production).
build/makruk serve --address 127.0.0.1 --port "$port" --data "$data" \
  --max-connections-per-ip 0 --limit-create 0 --limit-join 0 --threads "${THREADS:-2}" \
  --hub-threads "${HUB_THREADS:-1}" \
  $([ "$full_sync" = 1 ] && echo --sqlite-full-sync) \
  >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
sleep 1
build/load --port "$port" --games "$games" --rate "$rate" --seconds "$seconds" --server-pid "$server" --deflate "$deflate" --warmup "$warmup"
