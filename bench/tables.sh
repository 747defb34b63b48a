#!/usr/bin/env bash
# Tables on demand with many stored tables: how soon the server answers after
# it starts, its memory while idle, and how long opening a cold table takes.
# Usage: bench/tables.sh [TABLES] [OPENS] [sqlite|postgresql]
# The database (TABLES tables, made by bench/tables.cpp) is kept in
# build/bench-tables-TABLES/ and reused by the next run. With `postgresql`,
# the same tables are copied into a PostgreSQL server on loopback (its data
# kept in build/bench-tables-TABLES-pg/, the schema made by the server's own
# migrations), which runs for the measurement and stops after it.
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-1000000}
opens=${2:-2000}
backend=${3:-sqlite}

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
store=()
server=""
pgdir=""
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
stop_all() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
  [ -n "$pgdir" ] && as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
}
trap stop_all EXIT
if [ "$backend" = postgresql ]; then
  pgdir=$PWD/build/bench-tables-$tables-pg
  pgport=$((10000 + RANDOM % 5000))
  if [ ! -f "$pgdir/loaded" ]; then
    tests/services/postgres.sh stop "$pgdir"
    url=$(tests/services/postgres.sh start "$pgdir" "$pgport")/postgres
    # The schema, by the server's own migrations.
    scratch=$(mktemp -d)
    build/makruk serve --address 127.0.0.1 --port "$port" --data "$scratch" --store "$url" >"$scratch/log" 2>&1 &
    server=$!
    until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.1; done
    kill "$server"; wait "$server" 2>/dev/null || true; server=""; rm -rf "$scratch"
    copy() {  # TABLE COLUMNS: from the SQLite database into PostgreSQL, as CSV
      sqlite3 -csv "$data/makruk.db" "SELECT $2 FROM $1" | psql -q "$url" -c "\\copy $1 ($2) FROM STDIN CSV"
    }
    copy parties "code, variant, counting, show_legal, swap_colors, labels, cpu_level, created_at, start_fen, mode, starts_at, expired_at, rematch_offer, invite_key, last_action_at, cpu_turn, left_at"
    copy seats "code, seat, name, token_hash"
    copy games "id, code, number, white_seat, start_fen, created_at"
    copy actions "game, version, action, at"
    psql -q "$url" -c "SELECT setval('games_id_seq', (SELECT MAX(id) FROM games))" -c "VACUUM ANALYZE" >/dev/null
    touch "$pgdir/loaded"
  else
    as_postgres "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $pgport -k $pgdir -c max_connections=200" start >/dev/null
    url=postgresql://postgres@127.0.0.1:$pgport/postgres
  fi
  echo "PostgreSQL: $(psql -qtA "$url" -c "SELECT pg_size_pretty(pg_database_size('postgres'))") for $tables tables"
  store=(--store "$url")
  # A cold start of the database's files too, as after a reboot of this server alone.
  sync
fi
start=$(date +%s%N)
build/makruk serve --address 127.0.0.1 --port "$port" --data "$data" --web web/dist "${store[@]}" >"$data/server.log" 2>&1 &
server=$!
until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.01; done
echo "answering $(( ($(date +%s%N) - start) / 1000000 )) ms after start ($(grep -o '[0-9]* tables opened at start' "$data/server.log"))"
sleep 3
echo "idle: $(rss $server)"
build/tables open 127.0.0.1 "$port" "$data/makruk.db.codes" "$opens"
echo "after opening $opens tables: $(rss $server)"
