#!/usr/bin/env bash
# Load benchmark for several instances: PostgreSQL and Redis on loopback (made
# here, stopped at the end), N `makruk serve` instances on them, nginx in
# front, and the load generator (bench/load.cpp) against nginx.
# Usage: bench/cluster.sh [INSTANCES] [GAMES] [MOVES_PER_SECOND] [SECONDS] [WARMUP_SECONDS]
# With PAUSE_REDIS="AT SECONDS", Redis is stopped (SIGSTOP) AT seconds after the
# load generator starts (its connections take a while: see its output), for
# SECONDS, then resumed. With PG_DELAY_US=N, the instances reach PostgreSQL
# through bench/delay_proxy.cpp, which holds every byte N microseconds each way
# (a database across a network). STORE_WRITERS=N: each instance's --store-writers.
# One instance is loaded directly, without nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
instances=${1:-2}
games=${2:-5000}
rate=${3:-2000}
seconds=${4:-30}
warmup=${5:-0}

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_BENCH=ON >/dev/null
cmake --build build -j"$(nproc)" --target makruk load delay_proxy >/dev/null

ulimit -n "$(ulimit -Hn)"
dir=$(mktemp -d)
chmod 755 "$dir"
pids=()
instance_pids=()
cleanup() {
  [ -f "$dir/redis/redis.pid" ] && kill -CONT "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  tests/services/redis.sh stop "$dir/redis"
  tests/services/postgres.sh stop "$dir/pg"
  rm -rf "$dir"
}
trap cleanup EXIT
pg=$(tests/services/postgres.sh start "$dir/pg" $((10000 + RANDOM % 5000)))
redis=$(tests/services/redis.sh start "$dir/redis" $((15000 + RANDOM % 5000)))
store="$pg/postgres"
if [ -n "${PG_DELAY_US:-}" ]; then
  proxy=$((30000 + RANDOM % 2000))  # below the ephemeral range too
  build/delay_proxy "$proxy" "${pg##*:}" "$PG_DELAY_US" &
  pids+=($!)
  store="postgresql://postgres@127.0.0.1:$proxy/postgres"
  sleep 0.5
fi
# Below the ephemeral range, which the load generator's connections fill.
front=$((20000 + RANDOM % 10000))
upstream=""
for i in $(seq "$instances"); do
  port=$((front + i))
  # Every client comes from 127.0.0.1: lift the per-address limits, as load.sh does.
  build/makruk serve --address 127.0.0.1 --port "$port" --data "$dir/instance$i" \
    --store "$store" --bus "$redis" --max-connections-per-ip 0 --limit-create 0 --limit-join 0 \
    ${STORE_WRITERS:+--store-writers "$STORE_WRITERS"} \
    >"$dir/instance$i.log" 2>&1 &
  pids+=($!)
  instance_pids+=($!)
  upstream+="    server 127.0.0.1:$port;"$'\n'
done
mkdir -p "$dir/nginx"
cat >"$dir/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
daemon off;
worker_processes 2;
worker_rlimit_nofile $(ulimit -Hn);
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 30000; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $dir/nginx/body; proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fastcgi; uwsgi_temp_path $dir/nginx/uwsgi; scgi_temp_path $dir/nginx/scgi;
  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  upstream makruk {
$upstream  }
  server {
    listen 127.0.0.1:$front reuseport;
    location / {
      proxy_pass http://makruk;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      proxy_set_header Host \$http_host;
      proxy_read_timeout 1h;
    }
  }
}
CONF
if [ "$instances" = 1 ]; then
  front=$((front + 1))  # the instance itself
  sleep 2
  echo "one instance on PostgreSQL${PG_DELAY_US:+ ($PG_DELAY_US us each way)} and Redis"
else
  /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" &
  pids+=($!)
  sleep 2
  echo "$instances instance(s) on PostgreSQL${PG_DELAY_US:+ ($PG_DELAY_US us each way)} and Redis behind nginx"
fi
if [ -n "${PAUSE_REDIS:-}" ]; then
  read -r pause_at pause_for <<<"$PAUSE_REDIS"
  (
    sleep "$pause_at"
    kill -STOP "$(cat "$dir/redis/redis.pid")" && echo "Redis stopped for $pause_for s"
    sleep "$pause_for"
    kill -CONT "$(cat "$dir/redis/redis.pid")" && echo "Redis resumed"
  ) &
  pids+=($!)
fi
build/load --port "$front" --games "$games" --rate "$rate" --seconds "$seconds" --warmup "$warmup" || {
  tail -n 5 "$dir/nginx/error.log" "$dir"/instance*.log
  exit 1
}
for i in $(seq "$instances"); do
  pid=${instance_pids[$((i - 1))]}
  if kill -0 "$pid" 2>/dev/null; then
    echo "instance $i: $(awk '/VmRSS/ {printf "%.0f MiB", $2 / 1024}' "/proc/$pid/status")"
  else
    echo "instance $i: exited"; tail -n 20 "$dir/instance$i.log"
  fi
done
