#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the optimised build's
# unit tests of the rules and the engine, perft, the integration and
# command-line tests, the server's threaded tests under ThreadSanitizer; the
# WebAssembly build against the native one; the browser tests; every unit test
# (the server's only here) and the integration tests again under
# AddressSanitizer and UBSan; and a short libFuzzer run over the parsers.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Each stage's time, printed at the end (also when a stage fails).
stage_names=() stage_times=() stage_t0=$SECONDS
stage() {
  if ((${#stage_names[@]})); then stage_times+=($((SECONDS - stage_t0))); fi
  stage_names+=("$1")
  stage_t0=$SECONDS
  echo "== $1"
}
stage_report() {
  stage_times+=($((SECONDS - stage_t0)))
  echo "== stage times (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
  for i in "${!stage_names[@]}"; do printf '%6d s  %s\n' "${stage_times[$i]}" "${stage_names[$i]}"; done
}

stage "installing what is missing"
scripts/install-deps.sh

stage "PostgreSQL and Redis on loopback for the store's and the bus's tests (stopped at the end)"
services=$(mktemp -d)
chmod 755 "$services"
trap 'stage_report; [ -z "${builds_pid:-}" ] || { kill -CONT -- "-$builds_pid"; kill -- "-$builds_pid"; } 2>/dev/null || true; tests/services/postgres.sh stop "$services/postgres"; tests/services/redis.sh stop "$services/redis"; rm -rf "$services"' EXIT
# start_service NAME FIRST_PORT: on a port below the ephemeral range (32768 and
# up, where the tests' own connections take theirs), another if that one is taken.
start_service() {
  local url attempt
  for attempt in 1 2 3; do
    if url=$(tests/services/"$1".sh start "$services/$1" $(($2 + RANDOM % 6000))); then
      echo "$url"
      return 0
    fi
    tests/services/"$1".sh stop "$services/$1"
  done
  echo "cannot start $1 for the tests" >&2
  return 1
}
MAKRUK_TEST_POSTGRES=$(start_service postgres 20000)
MAKRUK_TEST_REDIS=$(start_service redis 26000)
export MAKRUK_TEST_POSTGRES MAKRUK_TEST_REDIS

stage "optimised build (and the threaded tests under ThreadSanitizer)"
# The server's unit tests are built and run once, in the sanitizer build below
# (the threaded ones also under ThreadSanitizer here): not a third time.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMAKRUK_TSAN=ON -DMAKRUK_SERVER_UNIT_TESTS=OFF >/dev/null
cmake --build build -j"$jobs"
# The later stages' builds, at the lowest priority, beside the tests: ctest
# leaves about half of the two cores idle (its tests wait on timers and on
# other processes), and a niced build takes only what the tests leave. In
# order: the WebAssembly build and the web client's (then "web" is ready), the
# sanitizer build ("asan"), the fuzzing build, and the fuzzing runs beside the
# sanitizer tests ("fuzz" holds their exit status).
ready="$services/ready"
mkdir -p "$ready"
# ready_wait NAME: waits until the builds beside the tests have made NAME.
ready_wait() {
  while [ ! -e "$ready/$1" ]; do
    if ! kill -0 "$builds_pid" 2>/dev/null; then
      cat "$services/builds.log"
      echo "the builds beside the tests failed before $1 (above)" >&2
      exit 1
    fi
    sleep 2
  done
}
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
builds_beside_tests() {
  renice -n 19 "$BASHPID" >/dev/null
  scripts/build-wasm.sh
  scripts/install-web-deps.sh
  scripts/build-web.sh
  touch "$ready/web"
  # The server and the unit tests; the integration tests' clients are the
  # optimised build's, run against this build's server (MAKRUK_CLIENTS_FROM).
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAKRUK_SANITIZE=ON -DMAKRUK_CLIENTS_FROM="$PWD/build" >/dev/null
  cmake --build build-asan -j"$jobs"
  touch "$ready/asan"
  # The fuzz targets only (with clang): the tests and the server are built and run above.
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMAKRUK_FUZZ=ON -DMAKRUK_TESTS=OFF >/dev/null
  cmake --build build-fuzz -j"$jobs" --target fuzz_parse fuzz_push fuzz_hub
  # Two at a time: the parsers (FEN, move, action, PGN) for a minute; beside
  # them the Web Push parsers (base64url, aes128gcm bodies, VAPID headers,
  # URLs) and then the hub's messages (several clients, a real SQLite store),
  # half a minute each.
  local fuzz_rc=0 fuzz_parse_pid
  fuzz fuzz_parse corpus "${MAKRUK_FUZZ_SECONDS:-60}" >"$services/fuzz-parse.log" 2>&1 &
  fuzz_parse_pid=$!
  { fuzz fuzz_push corpus_push "${MAKRUK_FUZZ_PUSH_SECONDS:-30}" && fuzz fuzz_hub corpus_hub "${MAKRUK_FUZZ_HUB_SECONDS:-30}"; } >"$services/fuzz-rest.log" 2>&1 || fuzz_rc=1
  wait "$fuzz_parse_pid" || fuzz_rc=1
  echo "$fuzz_rc" >"$ready/fuzz"
}
# In a process group of its own (job control on for that moment), so that a
# failing run stops it whole.
set -m
builds_beside_tests >"$services/builds.log" 2>&1 &
builds_pid=$!
set +m

stage "the rules' and the engine's unit tests, perft, the integration and command-line tests, the threaded tests under ThreadSanitizer (beside them, at low priority: the WebAssembly, web, sanitizer and fuzzing builds)"
ctest --test-dir build --output-on-failure -j"$jobs"

stage "the core and the engine in WebAssembly, against the native build"
ready_wait web
node tests/wasm/compare.mjs

stage "browser tests (Playwright, Chromium), two runs side by side (the builds beside the tests paused meanwhile)"
# Each run has its own server and browser and takes every other test; the
# tests wait on state, so a loaded machine slows them instead of failing them.
# They keep both cores busy: a build beside them, even at the lowest
# priority, only slows them (by about 100 s), so it waits.
kill -STOP -- "-$builds_pid" 2>/dev/null || true
e2e_rc=0
for k in 0 1; do
  E2E_SHARD="$k/2" E2E_ARTIFACTS="tests/e2e/artifacts/shard-$k" node tests/e2e/run.mjs >"$services/e2e-$k.log" 2>&1 &
  eval "e2e_pid_$k=$!"
done
for k in 0 1; do
  pid_var="e2e_pid_$k"
  wait "${!pid_var}" || e2e_rc=1
  echo "-- browser tests, run $k of 2"
  cat "$services/e2e-$k.log"
done
kill -CONT -- "-$builds_pid" 2>/dev/null || true
[ "$e2e_rc" -eq 0 ] || { echo "browser tests failed" >&2; exit 1; }

stage "the rest of the sanitizer build (ASan + UBSan)"
ready_wait asan
stage "the tests under ASan + UBSan, the server's unit tests among them (beside them: the fuzzing build and runs)"
# Perft trees are capped, and the command line's engine matches left out, so
# the instrumented run stays short.
MAKRUK_PERFT_MAX_NODES=3000000 MAKRUK_CLI_LIGHT=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"

stage "the rest of the fuzzing: the parsers (FEN, move, action, PGN), the Web Push parsers, the hub's WebSocket messages"
ready_wait fuzz
wait "$builds_pid" || true
cat "$services/builds.log" "$services/fuzz-parse.log" "$services/fuzz-rest.log"
[ "$(cat "$ready/fuzz")" -eq 0 ] || { echo "fuzzing found something (above)" >&2; exit 1; }
echo "fuzz: no crash found"
