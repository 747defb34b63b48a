#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs; does nothing when all are
# present. Run as root (or through sudo).
set -euo pipefail

packages=(
  g++ make cmake pkg-config  # toolchain
  libcli11-dev               # command-line parsing
  libboost1.81-dev libboost-json1.81-dev  # Beast/Asio server, JSON
  libsqlite3-dev libssl-dev libqrencode-dev  # storage, tokens, QR codes
  librsvg2-dev               # pictures of positions (link previews), drawn from the client's own SVG pieces
  libpq-dev                  # the PostgreSQL store
  postgresql                 # a PostgreSQL server for the tests (started on loopback by them)
  libhiredis-dev             # the Redis bus between instances
  redis-server nginx         # for the multi-instance tests (started on loopback by them)
  systemd                    # tests: systemd-analyze verifies the shipped unit (deploy/makruk.service)
  libcurl4-openssl-dev       # Web Push delivery
  liblemon-dev               # tournaments: the Swiss pairings' matching (Edmonds' blossom algorithm)
  zlib1g-dev                 # the wire benchmark's permessage-deflate client
  curl sqlite3               # the benchmarks: health checks, copying stored tables into PostgreSQL
  libgtest-dev               # unit tests
  fairy-stockfish            # tests: exported games replayed by another engine
  clang libclang-rt-14-dev   # libFuzzer targets
  emscripten                 # the rules core and the engine in WebAssembly, for the browser
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
