#!/usr/bin/env bash
# The rules core and the engine for the browser: WebAssembly built with Debian's
# emscripten from the same sources as the server (src/wasm/api.cpp is the
# interface). Writes DIR/makruk.js and DIR/makruk.wasm (DIR, relative to the
# repository's root: build-wasm); does nothing when they are newer than every
# source.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-wasm}
sources=(src/core/*.cpp src/engine/egtb.cpp src/engine/eval_params.cpp src/engine/evaluate.cpp src/engine/levels.cpp
  src/engine/nnue.cpp src/engine/search.cpp src/engine/tt.cpp src/wasm/api.cpp)
if [ -f "$out/makruk.wasm" ] &&
  [ -z "$(find src/core src/engine src/wasm scripts/build-wasm.sh -newer "$out/makruk.wasm" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out"
# Debian's emscripten runs its JavaScript tools with the node modules Debian ships.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
em++ -std=c++20 -O3 -DNDEBUG -Isrc "${sources[@]}" -o "$out/makruk.js" \
  -sMODULARIZE=1 -sEXPORT_NAME=makrukCore -sENVIRONMENT=web,worker,node \
  -sEXPORTED_FUNCTIONS=_mk_game,_mk_search,_mk_pgn,_mk_positions,_mk_typed,_mk_level_move,_mk_network,_malloc,_free \
  -sEXPORTED_RUNTIME_METHODS=cwrap,HEAPU8 \
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432 -fexceptions
echo "build-wasm: $out/makruk.wasm $(stat -c %s "$out/makruk.wasm") bytes, $(gzip -9c "$out/makruk.wasm" | wc -c) gzipped"
