#!/usr/bin/env bash
# Installs what is missing, builds the server and the web client, and serves
# the site on http://localhost:8080 with its SQLite database in ./data.
# With arguments, runs `build/makruk ARGS…` instead (e.g. `scripts/run.sh uci`).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target makruk

if (($#)); then
  exec build/makruk "$@"
fi
scripts/build-web.sh
exec build/makruk serve --port "${PORT:-8080}" --data "${DATA:-data}" --web web/dist
