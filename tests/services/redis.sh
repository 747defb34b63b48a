#!/usr/bin/env bash
# A throwaway Redis server for the tests, on loopback only, keeping nothing on disk.
#   tests/services/redis.sh start DIR PORT   # prints the URL
#   tests/services/redis.sh stop DIR
set -euo pipefail
case "$1" in
  start)
    dir=$2 port=$3
    mkdir -p "$dir"
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize yes \
      --pidfile "$dir/redis.pid" --dir "$dir" --logfile "$dir/redis.log" >/dev/null
    for _ in $(seq 100); do
      # Up, and ours (not another server that holds the port).
      if redis-cli -p "$port" config get pidfile 2>/dev/null | grep -qxF "$dir/redis.pid"; then
        echo "redis://127.0.0.1:$port"
        exit 0
      fi
      sleep 0.05
    done
    # Not up (the port taken, say): say why, and fail.
    echo "redis-server did not start on port $port:" >&2
    cat "$dir/redis.log" >&2 2>/dev/null || true
    exit 1
    ;;
  stop)
    dir=$2
    if [ -f "$dir/redis.pid" ]; then
      pid=$(cat "$dir/redis.pid")
      kill "$pid" 2>/dev/null || true
      # Gone before this returns: a new server may take the port at once.
      for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
