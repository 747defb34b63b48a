#!/usr/bin/env bash
# Browser tests: builds the web client if needed, then runs tests/e2e/run.mjs, which starts
# build/makruk serve on a free loopback port with a temporary data folder, drives Chromium
# through the interface, and stops the server. Last line: "e2e: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-web-deps.sh
if [ ! -x build/makruk ]; then
  cmake -S . -B build >/dev/null
  cmake --build build -j"${JOBS:-1}" --target makruk
fi
scripts/build-web.sh
exec node tests/e2e/run.mjs "$@"
