#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, on loopback only.
#   tests/services/postgres.sh start DIR PORT   # prints the URL (without a database)
#   tests/services/postgres.sh stop DIR
# PostgreSQL refuses to run as root: the server runs as the `postgres` user,
# with its data and socket in DIR (made for it). Commits are durable
# (fsync and synchronous_commit stay on, as in production).
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$1" in
  start)
    dir=$2 port=$3
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200" start >/dev/null
    echo "postgresql://postgres@127.0.0.1:$port"
    ;;
  stop)
    dir=$2
    [ -d "$dir/data" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
