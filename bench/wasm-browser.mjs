#!/usr/bin/env node
// The engine in Chromium (WebAssembly in a Web Worker, as the review and the analysis
// board run it) beside the native build, on searches of a few seconds: nodes per
// second for each position, and the ratio; then a review as the game page does it (a
// 120-ply game, every position searched depth by depth to the default 10). Needs build-wasm/ (scripts/build-wasm.sh),
// build/makruk_api and Debian's chromium (or CHROMIUM=path). `--net`: both with the
// learned evaluation (src/engine/nets/), as the browser's engine and the server search;
// `--simd`: the module's SIMD build (makruk-simd.wasm), as a browser with SIMD loads it.
//   node bench/wasm-browser.mjs [DEPTH] [--net] [--simd]
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const depth = Number(args.find((a) => /^\d+$/.test(a)) || 16);
const useNet = args.includes('--net');
const useSimd = args.includes('--simd');
const nets = path.join(root, 'src', 'engine', 'nets');
const wasmDir = path.join(root, 'build-wasm');
const native = path.join(root, 'build', 'makruk_api');
const require = createRequire(path.join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const POSITIONS = [
  ['start', 'makruk', ''],
  ['middlegame', 'makruk', 'e3e4 d6d5 e4d5 c6c5 b1d2 g8e7 d2c4 e7d5 c1c2 b8d7'],
  ['ouk start', 'ouk', ''],
];

const worker = `importScripts('/makruk.js');
makrukCore({ locateFile: (f) => '/' + (${useSimd} && f === 'makruk.wasm' ? 'makruk-simd.wasm' : f) }).then(async (m) => {
  const search = m.cwrap('mk_search', 'string', ['string', 'string', 'string', 'number', 'number', 'number']);
  const game = m.cwrap('mk_game', 'string', ['string', 'string', 'string', 'string']);
  if (${useNet}) {
    const network = m.cwrap('mk_network', 'string', ['string', 'number', 'number']);
    for (const [v, f] of [['makruk', 'default.nnue'], ['ouk', 'ouk.nnue']]) {
      const b = new Uint8Array(await (await fetch('/' + f)).arrayBuffer());
      const p = m._malloc(b.length);
      m.HEAPU8.set(b, p);
      if (!JSON.parse(network(v, p, b.length)).ok) throw new Error('network ' + f);
      m._free(p);
    }
  }
  onmessage = (e) => {
    if (e.data === 'review') {
      const played = [];
      for (let ply = 0; ply < 120; ply++) {
        const now = JSON.parse(game('makruk', 'auto', '', played.join(' ')));
        if (now.result !== '*' || !now.legal.length) break;
        played.push(ply < 2 ? now.legal[(ply * 7 + 3) % now.legal.length] : JSON.parse(search('makruk', '', played.join(' '), 3, 0, 1)).best);
      }
      const t0 = performance.now();
      let nodes = 0;
      for (let i = 0; i <= played.length; i++) {
        const prefix = played.slice(0, i).join(' ');
        if (!JSON.parse(game('makruk', 'auto', '', prefix)).legal.length) continue;
        for (let d = 1; d <= 10; d++) nodes += JSON.parse(search('makruk', '', prefix, d, 0, 1)).nodes;
      }
      postMessage({ plies: played.length, nodes, ms: performance.now() - t0 });
      return;
    }
    const [variant, moves, depth] = e.data;
    search(variant, '', '', 1, 0, 1);  // a first search makes the hash table
    const t0 = performance.now();
    const r = JSON.parse(search(variant, '', moves, depth, 0, 1));
    postMessage({ nodes: r.nodes, ms: performance.now() - t0, best: r.best });
  };
  postMessage('ready');
});`;
const page = `<!doctype html><script>
const w = new Worker('/worker.js');
window.run = (args) => new Promise((ok) => { w.onmessage = (e) => ok(e.data); w.postMessage(args); });
window.ready = new Promise((ok) => { w.onmessage = (e) => ok(e.data); });
</script>`;
const server = http.createServer((req, res) => {
  const files = { '/': [page, 'text/html'], '/worker.js': [worker, 'text/javascript'] };
  if (files[req.url]) return res.writeHead(200, { 'content-type': files[req.url][1] }).end(files[req.url][0]);
  const name = path.basename(req.url);
  const f = path.join(name.endsWith('.nnue') ? nets : wasmDir, name);
  if (!fs.existsSync(f)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': f.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' }).end(fs.readFileSync(f));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const tab = await browser.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
await tab.evaluate(() => window.ready);
console.log(`engine at depth ${depth}, one thread: Chromium (WebAssembly${useSimd ? ' with SIMD' : ''} in a worker) and native,` +
  ` ${useNet ? 'the learned evaluation' : 'the hand-written evaluation'}`);
const netCalls = useNet ? `network\tmakruk\t${path.join(nets, 'default.nnue')}\nnetwork\touk\t${path.join(nets, 'ouk.nnue')}\n` : '';
for (const [name, variant, moves] of POSITIONS) {
  const w = await tab.evaluate((args) => window.run(args), [variant, moves, depth]);
  const input = `${netCalls}search\t${variant}\t\t\t1\nsearch\t${variant}\t\t${moves}\t${depth}\n`;
  const n = spawnSync(native, [], { input, encoding: 'utf8' });
  const nr = JSON.parse(n.stdout.trim().split('\n').at(-1));
  const nms = Number(n.stderr.trim().split('\n')[1].split(' ')[0]);
  const wnps = (w.nodes / w.ms) * 1000, nnps = (nr.nodes / nms) * 1000;
  console.log(`${name}: Chromium ${w.nodes} nodes in ${(w.ms / 1000).toFixed(1)} s, ${(wnps / 1e6).toFixed(2)} M/s;` +
    ` native ${nr.nodes} nodes in ${(nms / 1000).toFixed(1)} s, ${(nnps / 1e6).toFixed(2)} M/s; ratio ${(wnps / nnps).toFixed(2)}`);
}
const r = await tab.evaluate((args) => window.run(args), 'review');
console.log(`review of a ${r.plies}-ply game at depth 10 in Chromium: ${(r.ms / 1000).toFixed(1)} s, ${r.nodes} nodes, ${((r.nodes / r.ms) / 1000).toFixed(2)} M nodes/s`);
await browser.close();
server.close();
