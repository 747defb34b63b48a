#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the optimised build's
# unit, integration and command-line tests, the WebAssembly build against the
# native one, the browser tests, the server's threaded tests under
# ThreadSanitizer, the same tests again under AddressSanitizer and UBSan, and a
# short libFuzzer run over the parsers.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh

echo "== PostgreSQL and Redis on loopback for the store's and the bus's tests (stopped at the end)"
services=$(mktemp -d)
chmod 755 "$services"
trap 'tests/services/postgres.sh stop "$services/pg"; tests/services/redis.sh stop "$services/redis"; rm -rf "$services"' EXIT
MAKRUK_TEST_POSTGRES=$(tests/services/postgres.sh start "$services/pg" $((20000 + RANDOM % 20000)))
MAKRUK_TEST_REDIS=$(tests/services/redis.sh start "$services/redis" $((40000 + RANDOM % 20000)))
export MAKRUK_TEST_POSTGRES MAKRUK_TEST_REDIS

echo "== optimised build: unit, perft and command-line tests (and the threaded ones under ThreadSanitizer)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_TSAN=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== the core and the engine in WebAssembly, against the native build"
scripts/build-wasm.sh
node tests/wasm/compare.mjs

echo "== browser tests (Playwright, Chromium)"
scripts/install-web-deps.sh
scripts/build-web.sh
node tests/e2e/run.mjs

echo "== sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAKRUK_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs"
# Perft trees are capped so the instrumented run stays short.
MAKRUK_PERFT_MAX_NODES=3000000 ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== fuzzing the FEN, move and action parsers"
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMAKRUK_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$jobs"
# fuzz TARGET CORPUS SECONDS: runs a target from a copy of its seed corpus.
fuzz() {
  local corpus log rc=0
  corpus=$(mktemp -d)
  log=$(mktemp)
  cp "fuzz/$2"/* "$corpus"/
  "build-fuzz/$1" -max_total_time="$3" -print_final_stats=1 -artifact_prefix=build-fuzz/ "$corpus" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    # A finding: show the whole report and the input that caused it, then fail.
    cat "$log"
    for f in build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-*; do
      [ -e "$f" ] && { echo "== $f (base64)"; base64 "$f"; }
    done
    rm -rf "$corpus" "$log"
    return "$rc"
  fi
  tail -n 5 "$log"
  rm -rf "$corpus" "$log"
}
fuzz fuzz_parse corpus "${MAKRUK_FUZZ_SECONDS:-60}"
echo "== fuzzing the Web Push parsers (base64url, aes128gcm bodies, VAPID headers, URLs)"
fuzz fuzz_push corpus_push "${MAKRUK_FUZZ_PUSH_SECONDS:-30}"
echo "== fuzzing the hub's WebSocket messages (several clients, a real SQLite store)"
fuzz fuzz_hub corpus_hub "${MAKRUK_FUZZ_HUB_SECONDS:-30}"
echo "fuzz: no crash found"
