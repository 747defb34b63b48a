// The rules core and the engine (WebAssembly: /core/makruk.{js,wasm}, built from the
// server's own sources) off the page's thread, so that the board never waits for a
// search. Each message is one call; a search deepens one ply at a time and reports
// after each. To stop a search, the page ends this worker (core.ts).
interface Emscripten {
  cwrap(name: string, ret: string, args: string[]): (...a: unknown[]) => string;
  _malloc(n: number): number;
  _free(p: number): void;
  HEAPU8: Uint8Array;
}
declare function importScripts(...urls: string[]): void;
declare const makrukCore: (opts: { locateFile: (f: string) => string }) => Promise<Emscripten>;

importScripts('/core/makruk.js');
// The module built with WebAssembly's 128-bit SIMD (the learned evaluation's sums, several
// at a time; the same answers) where this browser has SIMD: it validates a function that
// makes a 128-bit value (i32.const 0; i8x16.splat).
const SIMD_TEST = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11]);
const simd = (() => {
  try {
    return WebAssembly.validate(SIMD_TEST);
  } catch {
    return false;
  }
})();
const ready = makrukCore({ locateFile: (f) => `/core/${simd && f === 'makruk.wasm' ? 'makruk-simd.wasm' : f}` }).then((m) => ({
  game: m.cwrap('mk_game', 'string', ['string', 'string', 'string', 'string', 'number']),
  search: m.cwrap('mk_search', 'string', ['string', 'string', 'string', 'number', 'number', 'number', 'number']),
  pgn: m.cwrap('mk_pgn', 'string', ['string', 'string', 'number']),
  positions: m.cwrap('mk_positions', 'string', ['string', 'string', 'string', 'string', 'number']),
  typed: m.cwrap('mk_typed', 'string', ['string', 'string', 'string']),
  level: m.cwrap('mk_level_move', 'string', ['string', 'string', 'string', 'string', 'number', 'number']),
  network: (variant: string, bytes: Uint8Array): string => {
    const p = m._malloc(bytes.length);
    try {
      m.HEAPU8.set(bytes, p);
      return m.cwrap('mk_network', 'string', ['string', 'number', 'number'])(variant, p, bytes.length);
    } finally {
      m._free(p);
    }
  },
}));

// The CPU opponent, the analysis board and the review play and judge with the learned
// evaluation the server's CPU players have built in (/core/makruk.nnue, /core/ouk.nnue),
// fetched when the first move or search in a variant is asked for (and kept by the service
// worker for offline use); without it (offline before it was ever fetched, say) they use
// the hand-written one.
const networks = new Set<string>();
async function withNetwork(api: Awaited<typeof ready>, variant: string): Promise<void> {
  if (networks.has(variant)) return;
  try {
    const res = await fetch(`/core/${variant === 'ouk' ? 'ouk' : 'makruk'}.nnue`);
    if (!res.ok) return;
    const r = JSON.parse(api.network(variant, new Uint8Array(await res.arrayBuffer()))) as { ok: boolean };
    if (r.ok) networks.add(variant);
  } catch {
    /* offline and not cached: the hand-written evaluation */
  }
}

type Call =
  | { id: number; call: 'game'; args: [string, string, string, string, number] }
  | { id: number; call: 'pgn'; args: [string, string, number] }
  | { id: number; call: 'positions'; args: [string, string, string, string, number] }
  | { id: number; call: 'typed'; args: [string, string, string] }
  | { id: number; call: 'level'; args: [string, string, string, string, number, number] }
  | { id: number; call: 'search'; args: [string, string, string, number, number, number, number, number] };

self.onmessage = async (e: MessageEvent<Call>) => {
  const m = e.data;
  const api = await ready;
  if (m.call === 'game') {
    postMessage({ id: m.id, result: JSON.parse(api.game(...m.args)) });
    return;
  }
  if (m.call === 'pgn') {
    postMessage({ id: m.id, result: JSON.parse(api.pgn(...m.args)) });
    return;
  }
  if (m.call === 'typed') {
    postMessage({ id: m.id, result: JSON.parse(api.typed(...m.args)) });
    return;
  }
  if (m.call === 'level') {
    await withNetwork(api, m.args[0]);
    postMessage({ id: m.id, result: JSON.parse(api.level(...m.args)) });
    return;
  }
  if (m.call === 'positions') {
    postMessage({ id: m.id, result: JSON.parse(api.positions(...m.args)) });
    return;
  }
  await withNetwork(api, m.args[0]);
  // `budget` (ms, 0: none): no deeper search once that much time has gone; `from`: the
  // first depth searched (a search taken up again where it rested: the table of
  // positions already searched is still in the core's memory).
  const [variant, fen, actions, depth, lines, playOn, budget, from] = m.args;
  let last: { ok: boolean; nodes?: number } | null = null;
  let total = 0;  // nodes over every depth
  const t0 = performance.now();
  for (let d = Math.max(1, from); d <= depth; d++) {
    // With a budget, the search of a depth stops where the time runs out; what stands is
    // then the depth before it. The first depth of a search taken up again runs to its end:
    // asked to think longer, the engine always comes back at least one depth deeper (the
    // next depth can take more than the doubled time, and cut it would show nothing new).
    const takenUp = from > 1 && d === from;
    const left = budget > 0 && !takenUp ? Math.max(1, Math.round(budget - (performance.now() - t0))) : 0;
    const r = JSON.parse(api.search(variant, fen, actions, d, left, lines, playOn)) as { ok: boolean; nodes?: number; depth?: number };
    // (a shallower answer with time left, a forced line say, is shown as before; without a
    // time limit a shallower answer is never a cut one)
    if (r.ok && left > 0 && (r.depth ?? 0) < d && performance.now() - t0 >= budget - 50) break;
    last = r;
    if (!last.ok) break;
    total += last.nodes ?? 0;
    postMessage({ id: m.id, progress: { ...last, total, ms: performance.now() - t0 } });
    if (budget > 0 && performance.now() - t0 >= budget) break;
  }
  postMessage({ id: m.id, result: { ...last, total, ms: performance.now() - t0 } });
};
