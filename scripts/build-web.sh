#!/usr/bin/env bash
# Builds the web client into web/dist: installs its node packages with `npm ci` when
# node_modules is missing or older than package-lock.json, builds the rules core and
# the engine in WebAssembly (scripts/build-wasm.sh), then runs the build.
set -euo pipefail
cd "$(dirname "$0")/../web"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "build-web: node and npm are needed (Node 20.19 or newer); run scripts/install-web-deps.sh" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "build-web: Node $(node --version) is too old; Vite 8 needs Node 20.19 or newer" >&2
  exit 1
fi

stamp=node_modules/.package-lock.json
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "build-web: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
# The rules core and the engine in WebAssembly, served as /core/makruk.{js,wasm} (and
# /core/makruk-simd.wasm, for browsers with WebAssembly SIMD), and the
# learned evaluation the CPU opponent plays with offline (/core/makruk.nnue, /core/ouk.nnue).
../scripts/build-wasm.sh build-wasm  # (a folder of the repository's root)
mkdir -p public/core
cp ../build-wasm/makruk.js ../build-wasm/makruk.wasm ../build-wasm/makruk-simd.wasm public/core/
cp ../src/engine/nets/default.nnue public/core/makruk.nnue
cp ../src/engine/nets/ouk.nnue public/core/ouk.nnue
npm run build --silent
echo "build-web: web/dist is ready"
