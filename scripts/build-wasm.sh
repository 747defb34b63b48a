#!/usr/bin/env bash
# The rules core and the engine for the browser: WebAssembly built with Debian's
# emscripten from the same sources as the server (src/wasm/api.cpp is the
# interface). Writes DIR/makruk.js with two builds of the module it loads:
# DIR/makruk.wasm, for every browser, and DIR/makruk-simd.wasm, whose learned
# evaluation uses WebAssembly's 128-bit SIMD (the page picks it where the browser
# has SIMD; both give the same results). DIR, relative to the repository's root:
# build-wasm. Each source is compiled once (the network's twice: with and without
# SIMD), two at a time, and only when it changed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-wasm}
sources=(src/core/*.cpp src/engine/egtb.cpp src/engine/eval_params.cpp src/engine/evaluate.cpp src/engine/levels.cpp
  src/engine/nnue.cpp src/engine/search.cpp src/engine/tt.cpp src/wasm/api.cpp)
if [ -f "$out/makruk.wasm" ] && [ -f "$out/makruk-simd.wasm" ] &&
  [ -z "$(find src/core src/engine src/wasm scripts/build-wasm.sh -newer "$out/makruk.wasm" -print -quit)" ] &&
  [ -z "$(find src/core src/engine src/wasm scripts/build-wasm.sh -newer "$out/makruk-simd.wasm" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out/obj"
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
flags=(-std=c++20 -O3 -DNDEBUG -Isrc -fexceptions)

# compile SOURCE OBJECT [FLAGS…]: when the object is older than any source or header.
compile() {
  local src=$1 obj=$2
  shift 2
  if [ -f "$obj" ] && [ -z "$(find src/core src/engine src/wasm "$src" scripts/build-wasm.sh -newer "$obj" -print -quit)" ]; then
    return 0
  fi
  em++ "${flags[@]}" "$@" -c "$src" -o "$obj"
}
objects=()
pids=()
jobs=$(nproc)
for src in "${sources[@]}"; do
  obj="$out/obj/$(echo "${src%.cpp}" | tr / _).o"
  objects+=("$obj")
  compile "$src" "$obj" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
compile src/engine/nnue.cpp "$out/obj/nnue-simd.o" -msimd128 &
pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done

link=(-sMODULARIZE=1 -sEXPORT_NAME=makrukCore -sENVIRONMENT=web,worker,node
  -sEXPORTED_FUNCTIONS=_mk_game,_mk_search,_mk_pgn,_mk_positions,_mk_typed,_mk_level_move,_mk_network,_malloc,_free
  -sEXPORTED_RUNTIME_METHODS=cwrap,HEAPU8
  -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432 -fexceptions -O3)
em++ "${objects[@]}" "${link[@]}" -o "$out/makruk.js"
# The SIMD build: the same objects but the network's; its loader is the same as the
# other's (checked below), so one makruk.js serves both.
simd_objects=()
for obj in "${objects[@]}"; do
  [ "$obj" = "$out/obj/src_engine_nnue.o" ] && obj="$out/obj/nnue-simd.o"
  simd_objects+=("$obj")
done
mkdir -p "$out/simd"
em++ "${simd_objects[@]}" "${link[@]}" -msimd128 -o "$out/simd/makruk.js"
if ! cmp -s "$out/makruk.js" "$out/simd/makruk.js"; then
  echo "build-wasm: the SIMD build's loader differs from the other's" >&2
  diff "$out/makruk.js" "$out/simd/makruk.js" | head -20 >&2
  exit 1
fi
mv "$out/simd/makruk.wasm" "$out/makruk-simd.wasm"
rm -rf "$out/simd"
for f in makruk.wasm makruk-simd.wasm; do
  echo "build-wasm: $out/$f $(stat -c %s "$out/$f") bytes, $(gzip -9c "$out/$f" | wc -c) gzipped"
done
