#!/usr/bin/env node
// The WebAssembly build of the core and the engine (scripts/build-wasm.sh) against the
// native build of the same interface (build/makruk_api): random games in both variants
// and both counting modes, with the non-move actions (counts, draw offers, claims,
// resignations) tried at random too. Every answer (legal moves, SAN, Thai SAN, FEN,
// count, result and reason, refusals and their words) must be the same text. Then the
// engine on both: legal best moves, and nodes per second side by side; and the module's
// two builds (makruk.wasm, makruk-simd.wasm) searching with the learned evaluation alike.
//   node tests/wasm/compare.mjs [WASM_DIR] [NATIVE_BINARY]
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const wasmDir = path.resolve(process.argv[2] || path.join(root, 'build-wasm'));
const native = path.resolve(process.argv[3] || path.join(root, 'build', 'makruk_api'));
const require = createRequire(import.meta.url);
const factory = require(path.join(wasmDir, 'makruk.js'));
const core = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'makruk.wasm')) });
const gameOn = core.cwrap('mk_game', 'string', ['string', 'string', 'string', 'string', 'number']);
const game = (variant, counting, fen, actions) => gameOn(variant, counting, fen, actions, 0);
const searchOn = core.cwrap('mk_search', 'string', ['string', 'string', 'string', 'number', 'number', 'number', 'number']);
const searchLines = (variant, fen, moves, depth, ms, lines) => searchOn(variant, fen, moves, depth, ms, lines, 0);
const search = (variant, fen, moves, depth, ms) => searchLines(variant, fen, moves, depth, ms, 1);
const pgnAt = core.cwrap('mk_pgn', 'string', ['string', 'string', 'number']);
const pgn = (text, variant) => pgnAt(text, variant, 0);
const positionsOn = core.cwrap('mk_positions', 'string', ['string', 'string', 'string', 'string', 'number']);
const positionsOf = (variant, counting, fen, actions) => positionsOn(variant, counting, fen, actions, 0);
const typed = core.cwrap('mk_typed', 'string', ['string', 'string', 'string']);

// A small seeded generator, so that a failure can be replayed.
let seed = 20261201;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};

const calls = [];
const answers = [];
const OTHER = ['count:w', 'count:b', 'stop:w', 'stop:b', 'offer:w', 'offer:b', 'accept:w', 'accept:b', 'decline:w',
  'decline:b', 'claim:w', 'claim:b', 'resign:w', 'resign:b', 'e3e5', 'x9'];
const FENS = ['', '8/8/4k3/8/8/3MK3/8/7R b - - 0 30', '7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1'];
for (const variant of ['makruk', 'ouk']) {
  for (const counting of ['auto', 'declare']) {
    for (let g = 0; g < 20; g++) {
      const fen = variant === 'makruk' ? FENS[g % FENS.length] : '';
      const actions = [];
      for (let ply = 0; ply < 160; ply++) {
        const line = actions.join(' ');
        const a = JSON.parse(game(variant, counting, fen, line));
        calls.push(['game', variant, counting, fen, line].join('\t'));
        answers.push(JSON.stringify(a));
        if (ply % 16 === 15) {
          calls.push(['positions', variant, counting, fen, line].join('\t'));
          answers.push(JSON.stringify(JSON.parse(positionsOf(variant, counting, fen, line))));
        }
        if (a.ok && a.result !== '*' && ['bare-kings', 'count-expired', 'repetition', 'insufficient-material', 'resignation', 'agreement'].includes(a.reason))
          playOn(variant, counting, fen, actions);
        if (!a.ok || a.result !== '*') break;
        // Now and then an action that is not a move (often refused: the refusal must agree too).
        if (rand(10) === 0) {
          const other = OTHER[rand(OTHER.length)];
          const tried = [...actions, other].join(' ');
          const b = JSON.parse(game(variant, counting, fen, tried));
          calls.push(['game', variant, counting, fen, tried].join('\t'));
          answers.push(JSON.stringify(b));
          if (b.ok) actions.push(other);
          continue;
        }
        if (!a.legal.length) break;
        // A move as a player might type it: its SAN, its Thai SAN, its coordinates, or a slip.
        if (ply % 7 === 0 && a.san.length) {
          const last = a.san[a.san.length - 1];
          const text = [last, a.sanThai[a.sanThai.length - 1], a.legal[0], `${a.legal[0].slice(0, 2)}-${a.legal[0].slice(2)}`, 'Kz9', 'ม็'][rand(6)];
          calls.push(['typed', variant, a.fen, text].join('\t'));
          answers.push(JSON.stringify(JSON.parse(typed(variant, a.fen, text))));
        }
        actions.push(a.legal[rand(a.legal.length)]);
      }
    }
  }
}
// A game our rules ended with moves left (a count, bare kings…) played on, as the analysis
// board plays on a record that goes past that end: a few plies more, the end kept.
function playOn(variant, counting, fen, actions) {
  const line = [...actions];
  for (let k = 0; k < 6; k++) {
    const best = JSON.parse(searchOn(variant, fen, line.join(' '), 1, 0, 1, 1));
    if (!best.ok || !best.best || best.best === '0000') return;
    line.push(best.best);
    const b = JSON.parse(gameOn(variant, counting, fen, line.join(' '), 1));
    calls.push(['game', variant, counting, fen, line.join(' '), '1'].join('\t'));
    answers.push(JSON.stringify(b));
    calls.push(['positions', variant, counting, fen, line.join(' '), '1'].join('\t'));
    answers.push(JSON.stringify(JSON.parse(positionsOn(variant, counting, fen, line.join(' '), 1))));
    if (!b.ok || !b.ended) throw new Error(`no play on past the end: ${variant} ${counting} ${line.join(' ')}`);
    if (b.result !== '*') return;
  }
}
// PGN, move lists and FENs read on both (texts with new lines written as "\\n" for the native side).
const TEXTS = ['1. e4 d5 2. Kb5 Nd7', '[Variant "Cambodian"]\n1. e4 {a comment} (1. d4) d5 $1 *', '8/8/4k3/8/8/3MK3/8/7R b - - 0 30',
  'e3e4 d6d5 e4d5', '[Event "unclosed]\n1. e4', '1. e4 { never closed', '[Variant "chess"]\n1. e4', ''];
for (const text of TEXTS)
  for (const v of ['makruk', 'ouk']) {
    calls.push(['pgn', text.replaceAll('\n', '\\n'), v].join('\t'));
    answers.push(JSON.stringify(JSON.parse(pgn(text, v))));
  }
// A collection: its games listed, each picked by its index (a refused one too).
const COLLECTION = '[White "A"]\n1. e4 d5 *\n\n[White "B"]\n1. e4 Kz9 *\n\n[White "C"]\n[Variant "cambodian"]\n1. e4 *\n';
for (const index of [0, 1, 2, 7]) {
  calls.push(['pgn', COLLECTION.replaceAll('\n', '\\n'), 'makruk', String(index)].join('\t'));
  answers.push(JSON.stringify(JSON.parse(pgnAt(COLLECTION, 'makruk', index))));
}
const run = spawnSync(native, [], { input: calls.join('\n') + '\n', maxBuffer: 1 << 30, encoding: 'utf8' });
if (run.status !== 0) throw new Error(`native: ${run.stderr || run.status}`);
const expected = run.stdout.trim().split('\n');
let differ = 0;
for (let i = 0; i < calls.length; i++) {
  const mine = answers[i];
  const theirs = JSON.stringify(JSON.parse(expected[i]));
  if (mine !== theirs && differ++ < 3) console.log(`DIFFER on ${calls[i]}\n  wasm:   ${mine}\n  native: ${theirs}`);
}
console.log(`wasm: ${calls.length} positions compared with the native build, ${differ} differ`);

// The engine: the same search on both; a legal best move, and the speed (after a
// first small search, which makes the hash table).
const DEPTH = Number(process.env.WASM_SEARCH_DEPTH || 10);
search('makruk', '', '', 1, 0);
const positions = [['makruk', ''], ['makruk', 'e3e4 d6d5 e4d5 c6c5'], ['ouk', '']];
let searchFailed = 0;
for (const [variant, moves] of positions) {
  const t0 = performance.now();
  const r = JSON.parse(search(variant, '', moves, DEPTH, 0));
  const ms = performance.now() - t0;
  const legal = JSON.parse(game(variant, 'auto', '', moves)).legal;
  if (!r.ok || !legal.includes(r.best)) searchFailed++;
  const input = ['search\tmakruk\t\t\t1', ['search', variant, '', moves, String(DEPTH)].join('\t')].join('\n') + '\n';
  const n = spawnSync(native, [], { input, encoding: 'utf8' });
  const nr = JSON.parse(n.stdout.trim().split('\n')[1]);
  const nms = Number(n.stderr.trim().split('\n')[1].split(' ')[0]);
  console.log(`search ${variant} [${moves}] depth ${DEPTH}: wasm ${r.best} ${r.nodes} nodes in ${Math.round(ms)} ms,` +
    ` ${Math.round((r.nodes / ms) * 1000)} n/s; native ${nr.best} ${nr.nodes} nodes in ${Math.round(nms)} ms,` +
    ` ${Math.round((nr.nodes / nms) * 1000)} n/s`);
}
// Multi-PV, as the analysis board asks for it: three lines with different first moves,
// each legal and its line playable, best first; the native build agrees on their number.
for (const [variant, moves] of positions) {
  const r = JSON.parse(searchLines(variant, '', moves, 8, 0, 3));
  const firsts = r.lines.map((l) => l.pv[0]);
  const value = (s) => (s.startsWith('mate') ? Math.sign(Number(s.split(' ')[1])) * 100000 - Number(s.split(' ')[1]) : Number(s.split(' ')[1]));
  const sorted = r.lines.every((l, i) => i === 0 || value(r.lines[i - 1].score) >= value(l.score));
  const playable = r.lines.every((l) => JSON.parse(game(variant, 'auto', '', [moves, ...l.pv].filter(Boolean).join(' '))).ok);
  const n = spawnSync(native, [], { input: ['search', variant, '', moves, '8', '3'].join('\t') + '\n', encoding: 'utf8' });
  const nr = JSON.parse(n.stdout.trim());
  const ok = r.lines.length === 3 && new Set(firsts).size === 3 && sorted && playable && r.best === firsts[0] && nr.lines.length === 3;
  console.log(`multi-PV ${variant} [${moves}]: ${r.lines.map((l) => `${l.pv[0]} ${l.score}`).join(', ')}${ok ? '' : ' WRONG'}`);
  if (!ok) searchFailed++;
}
// A review's cost: a 60-move game (played by the engine at depth 3, with a random first
// move or two), every position searched depth by depth to 10, as the web review does.
{
  const played = [];
  for (let ply = 0; ply < 120; ply++) {
    const now = JSON.parse(game('makruk', 'auto', '', played.join(' ')));
    if (now.result !== '*' || !now.legal.length) break;
    played.push(ply < 2 ? now.legal[rand(now.legal.length)] : JSON.parse(search('makruk', '', played.join(' '), 3, 0)).best);
  }
  const t0 = performance.now();
  let nodes = 0;
  for (let i = 0; i <= played.length; i++) {
    const prefix = played.slice(0, i).join(' ');
    if (!JSON.parse(game('makruk', 'auto', '', prefix)).legal.length) continue;
    for (let d = 1; d <= 10; d++) nodes += JSON.parse(search('makruk', '', prefix, d, 0)).nodes;
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`review of a ${played.length}-ply game at depth 10: ${s.toFixed(1)} s, ${nodes} nodes, ${Math.round(nodes / s)} n/s`);
}
// The CPU opponent without the server (mk_level_move, the web client's offline practice): at
// every level, in both variants and counting modes, actions the game takes; the same on the
// native build (the lower levels' choice at random is the standard library's own, so the two
// need not choose alike). A lone king counts at once in declaration mode; a draw offer is
// answered; the learned evaluation loads (mk_network), and a file that is none is refused.
{
  const levelMove = core.cwrap('mk_level_move', 'string', ['string', 'string', 'string', 'string', 'number', 'number']);
  const network = core.cwrap('mk_network', 'string', ['string', 'number', 'number']);
  const isMove = (a) => !a.includes(':') && a !== 'expire';
  const bytesIn = (b) => {
    const p = core._malloc(b.length);
    core.HEAPU8.set(b, p);
    return p;
  };
  let wrong = 0;
  const nativeCalls = [];
  const nativeAfter = [];
  const takes = (variant, counting, fen, line, r, who) => {
    const after = r.ok ? JSON.parse(game(variant, counting, fen, [...line, ...r.actions].join(' '))) : null;
    if (!after?.ok || !r.actions.some(isMove)) {
      if (wrong++ < 3) console.log(`level move refused (${who}): ${variant} ${counting} [${line.join(' ')}] -> ${JSON.stringify(r)}`);
      return null;
    }
    return after;
  };
  for (const useNet of [false, true]) {
    if (useNet) {
      for (const [v, file] of [['makruk', 'default.nnue'], ['ouk', 'ouk.nnue']]) {
        const b = fs.readFileSync(path.join(root, 'src', 'engine', 'nets', file));
        const p = bytesIn(b);
        if (!JSON.parse(network(v, p, b.length)).ok) wrong++;
        core._free(p);
      }
      const p = bytesIn(Buffer.from('none'));
      if (JSON.parse(network('makruk', p, 4)).ok) wrong++;
      core._free(p);
    }
    for (const variant of ['makruk', 'ouk']) {
      for (const counting of ['auto', 'declare']) {
        const fen = variant === 'makruk' && counting === 'declare' ? '8/8/4k3/8/8/3MK3/8/7R b - - 0 30' : '';
        const line = [];
        for (let level = 1; level <= 8; level++) {
          nativeCalls.push(['level', variant, counting, fen, line.join(' '), String(level), String(level)].join('\t'));
          nativeAfter.push([variant, counting, fen, line.slice()]);
          const r = JSON.parse(levelMove(variant, counting, fen, line.join(' '), level, level));
          if (level === 1 && fen && r.actions?.[0] !== 'count:b') wrong++;
          const after = takes(variant, counting, fen, line, r, 'wasm');
          if (!after) break;
          line.push(...r.actions);
          if (after.result !== '*') break;
        }
      }
    }
  }
  const offer = JSON.parse(levelMove('makruk', 'auto', '', 'e3e4 offer:w', 3, 1));
  if (!/^(accept|decline):b$/.test(offer.actions?.[0] ?? '')) wrong++;
  const n = spawnSync(native, [], { input: nativeCalls.join('\n') + '\n', encoding: 'utf8' });
  const answers = n.stdout.trim().split('\n');
  answers.forEach((a, i) => takes(...nativeAfter[i], JSON.parse(a), 'native'));
  console.log(`CPU levels 1-8 (mk_level_move): ${nativeCalls.length} moves each side, ${wrong} wrong`);
  if (wrong) searchFailed += wrong;
}
// The learned evaluation in the analysis's searches (mk_search), in both builds of the
// module: makruk.wasm and makruk-simd.wasm (what a browser with WebAssembly SIMD loads) give
// the same answers node for node, from fresh modules with the networks loaded; their
// speeds side by side, and the hand-written evaluation's before the networks.
{
  const fresh = async (file) => {
    const c = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, file)) });
    const s = c.cwrap('mk_search', 'string', ['string', 'string', 'string', 'number', 'number', 'number', 'number']);
    const load = c.cwrap('mk_network', 'string', ['string', 'number', 'number']);
    return {
      search: (variant, moves, depth) => {
        const t0 = performance.now();
        const r = JSON.parse(s(variant, '', moves, depth, 0, 1, 0));
        return { r, ms: performance.now() - t0 };
      },
      network: () => {
        for (const [v, file] of [['makruk', 'default.nnue'], ['ouk', 'ouk.nnue']]) {
          const b = fs.readFileSync(path.join(root, 'src', 'engine', 'nets', file));
          const p = c._malloc(b.length);
          c.HEAPU8.set(b, p);
          const ok = JSON.parse(load(v, p, b.length)).ok;
          c._free(p);
          if (!ok) return false;
        }
        return true;
      },
    };
  };
  const plain = await fresh('makruk.wasm');
  const simd = await fresh('makruk-simd.wasm');
  const nps = (x) => Math.round((x.r.nodes / x.ms) * 1000);
  const hand = [plain.search('makruk', '', DEPTH), simd.search('makruk', '', DEPTH)];
  if (!plain.network() || !simd.network()) searchFailed++;
  for (const [variant, moves] of positions) {
    const a = plain.search(variant, moves, DEPTH);
    const b = simd.search(variant, moves, DEPTH);
    const same = JSON.stringify(a.r) === JSON.stringify(b.r);
    if (!same || !a.r.ok) searchFailed++;
    console.log(`learned evaluation, ${variant} [${moves}] depth ${DEPTH}: ${a.r.best} ${a.r.score} ${a.r.nodes} nodes;` +
      ` ${nps(a)} n/s, with SIMD ${nps(b)} n/s${same ? '' : ` DIFFERENT (SIMD: ${JSON.stringify(b.r)})`}`);
  }
  console.log(`hand-written evaluation, makruk [] depth ${DEPTH}: ${nps(hand[0])} n/s, with SIMD ${nps(hand[1])} n/s`);
}
for (const file of ['makruk.wasm', 'makruk-simd.wasm']) console.log(`${file}: ${fs.statSync(path.join(wasmDir, file)).size} bytes`);
if (differ || searchFailed) {
  console.log(`wasm: FAILED (${differ} answers differ, ${searchFailed} searches without a legal move)`);
  process.exit(1);
}
console.log('wasm: passed');
