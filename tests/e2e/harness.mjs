// The browser tests' harness: the server (started on a free loopback port, or BASE_URL),
// Chromium through playwright-core, the helpers the suites share (pages, moves on the
// board, the API), the list of tests and the run. The tests themselves live in suites/,
// one file per subject; run.mjs registers them and runs them.
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const ART = process.env.E2E_ARTIFACTS || path.join(HERE, 'artifacts');
const ADMIN_SECRET = 'e2e-admin-secret';
const WEB = process.env.MAKRUK_WEB || path.join(ROOT, 'web', 'dist');  // the built client the server serves
fs.mkdirSync(ART, { recursive: true });
const require = createRequire(path.join(ROOT, 'web', 'package.json'));
const { chromium } = require('playwright-core');

// Two builds of Debian's Chromium: the headless shell (Blink without the browser around
// it: no tab strip and its pages, about 40% less CPU for the same tests) runs the tests,
// and the whole browser runs the few that need what only it has (notifications, Web Push:
// registered with testFull). CHROMIUM names one binary for every test.
const FULL_CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHELL = '/usr/bin/chromium-headless-shell';
const CHROMIUM = process.env.CHROMIUM || (fs.existsSync(SHELL) ? SHELL : FULL_CHROMIUM);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;
const SHARD = /^(\d+)\/(\d+)$/.exec(process.env.E2E_SHARD || '');
if (process.env.E2E_SHARD && (!SHARD || Number(SHARD[1]) >= Number(SHARD[2]))) throw new Error(`E2E_SHARD=${process.env.E2E_SHARD}: expected k/n with k < n`);
/** Whether this run takes the test at `index` (one run in every shard: `always`). */
const inShard = (index, always) => !SHARD || always || index % Number(SHARD[2]) === Number(SHARD[1]);
const SLOW = Number(process.env.E2E_TIMEOUT_SCALE || 1);

// ---------------------------------------------------------------- the server
let BASE = process.env.BASE_URL || '';
let server = null;
let serverPort = 0;
let dataDir = '';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForServer(base, ms = 15000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(`${base}/api/parties/ZZZZZZ`);
      if (r.status === 404 || r.status === 200) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`server at ${base} did not answer`);
}

async function startServer() {
  const bin = process.env.MAKRUK_BINARY || process.env.MAKRUK_BIN || path.join(ROOT, 'build', 'makruk');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: build it (cmake --build build --target makruk)`);
  if (!fs.existsSync(path.join(WEB, 'index.html'))) throw new Error(`${WEB} is missing: run scripts/build-web.sh`);
  if (!dataDir) dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'makruk-e2e-'));
  if (!serverPort) serverPort = await freePort();
  const log = fs.openSync(path.join(ART, 'server.log'), 'a');
  // --test-clock: POST /api/test/clock moves the server's clock (the expiry test needs it)
  // Every test's browser comes from 127.0.0.1: lift the per-address limits on new tables and joins.
  // A test that needs an address of its own sends X-Forwarded-For, as if behind a proxy.
  const args = ['serve', '--address', '127.0.0.1', '--port', String(serverPort), '--data', dataDir, '--web', WEB, '--test-clock', '--pair-same-address',
    '--limit-create', '0', '--limit-join', '0', '--limit-cpu', '0', '--trusted-proxy', '127.0.0.1'];
  // E2E_HUB_THREADS=N: the same tests against a server with N hub threads.
  if (process.env.E2E_HUB_THREADS) args.push('--hub-threads', process.env.E2E_HUB_THREADS);
  server = spawn(bin, args, {
    stdio: ['ignore', log, log],
    env: { ...process.env, MAKRUK_ADMIN_SECRET: ADMIN_SECRET },  // the feedback board's admin side
  });
  server.on('exit', (code, sig) => {
    if (server && !server.stopping) console.log(`  (server exited: ${code ?? sig})`);
  });
  BASE = `http://127.0.0.1:${serverPort}`;
  await waitForServer(BASE);
}

async function stopServer() {
  if (!server) return;
  const s = server;
  server = null;
  s.stopping = true;
  const gone = new Promise((r) => s.once('exit', r));
  s.kill('SIGTERM');
  const t = setTimeout(() => s.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}

// ---------------------------------------------------------------- helpers
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function assert(cond, msg) {
  if (!cond) throw new Error(`assertion failed: ${msg}`);
}

async function until(what, f, ms = 10000) {
  const end = Date.now() + ms * SLOW;
  let last;
  while (Date.now() < end) {
    try {
      last = await f();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(80);
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

let browser;  // the one the test under way opens its pages in
let shell;
let full;
// Whatever the server's Content-Security-Policy refused, on every page of every test.
const CSP_VIOLATIONS = [];
const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 800 } };

async function newPage(opts, locale = 'en-US') {
  const ctx = await browser.newContext({ ...opts, locale });
  const page = await ctx.newPage();
  page.consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.consoleErrors.push(m.text());
    if (/Content Security Policy/i.test(m.text())) CSP_VIOLATIONS.push(m.text());
  });
  page.on('pageerror', (e) => page.consoleErrors.push(String(e)));
  // The types of the WebSocket messages the page received and sent, in order.
  page.wsIn = [];
  page.wsOut = [];
  const types = (list) => (f) => {
    try {
      list.push(JSON.parse(f.payload).t);
    } catch {
      list.push('?');
    }
  };
  page.on('websocket', (ws) => {
    ws.on('framereceived', types(page.wsIn));
    ws.on('framesent', types(page.wsOut));
  });
  page.setDefaultTimeout(10000 * SLOW);
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(ART, `${name}.png`) });
}

const tid = (id) => `[data-testid="${id}"]`;
/** A number or text with its digits written as the Khmer pages write them (០–៩). */
const kmNum = (v) => String(v).replace(/[0-9]/g, (d) => '០១២៣៤៥៦៧៨៩'[Number(d)]);

async function text(page, sel) {
  return (await page.locator(sel).first().textContent())?.trim() ?? '';
}

async function state(page) {
  return page.evaluate(() => window.__makruk?.state?.() ?? null);
}

async function seatOf(page) {
  return page.evaluate(() => window.__makruk?.seat?.() ?? null);
}

async function myColor(page) {
  const s = await state(page);
  const seat = await seatOf(page);
  if (!s || seat === null) return null;
  return s.white === seat ? 'w' : s.black === seat ? 'b' : null;
}

async function waitV(page, v) {
  return until(`state v >= ${v}`, async () => {
    const s = await state(page);
    return s && s.v >= v ? s : null;
  });
}

/** Two frames drawn: a scroll made just before (ours, or Playwright's to reach an element)
 * has had its scroll event, on which the board forgets its cached position. A click before
 * that lands where the board was. */
async function framesDrawn(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/**
 * The board's place on the page, read once the page has drawn two frames (see framesDrawn),
 * as a function from a square's name to the page-space centre of that square.
 */
async function boardSquares(page) {
  await framesDrawn(page);
  const box = await page.locator(`${tid('board')} cg-board`).boundingBox();
  const orientation = await page.locator(tid('board')).getAttribute('data-orientation');
  const size = box.width / 8;
  return (sq) => {
    const f = sq.charCodeAt(0) - 97;
    const r = Number(sq[1]) - 1;
    const col = orientation === 'black' ? 7 - f : f;
    const row = orientation === 'black' ? r : 7 - r;
    return { x: box.x + (col + 0.5) * size, y: box.y + (row + 0.5) * size };
  };
}

/** The page-space centre of a square on the board, given the board's orientation. */
async function squareXY(page, sq) {
  return (await boardSquares(page))(sq);
}

async function clickMove(page, move, touch) {
  const at = await boardSquares(page);
  const a = at(move.slice(0, 2));
  const b = at(move.slice(2, 4));
  if (touch) {
    await page.touchscreen.tap(a.x, a.y);
    await sleep(60);
    await page.touchscreen.tap(b.x, b.y);
  } else {
    await page.mouse.click(a.x, a.y);
    await sleep(60);
    await page.mouse.click(b.x, b.y);
  }
}

async function dragMove(page, move) {
  const at = await boardSquares(page);
  const a = at(move.slice(0, 2));
  const b = at(move.slice(2, 4));
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

/** Plays one move through the interface of whoever is to move, and waits until both pages see it. */
async function playMove(pages, move, how) {
  const s0 = await state(pages[0]);
  const color = s0.turn;
  let mover = null;
  for (const p of pages) if ((await myColor(p)) === color) mover = p;
  assert(mover, `someone plays ${color}`);
  assert(s0.legal.some((m) => m.startsWith(move)), `${move} is legal (legal: ${s0.legal.join(' ')})`);
  await until(`${move}: my turn on the board`, async () => (await mover.locator(tid('board')).getAttribute('data-myturn')) === 'true');
  if (how === 'drag') await dragMove(mover, move);
  else await clickMove(mover, move, mover.touch);
  for (const p of pages) await waitV(p, s0.v + 1);
  const s1 = await state(pages[0]);
  const played = s1.moves[s0.moves.length];
  assert(played?.startsWith(move), `move ${s0.moves.length + 1} is ${move} (got ${played})`);
  return s1;
}

async function apiCreate(body) {
  const r = await fetch(`${BASE}/api/parties`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(j)}`);
  return j;
}

/** A table of Somchai's (seat 0, page a) and Dara's (seat 1, page b), its first game started. */
async function startedTable(optsA = DESKTOP, localeA = 'en-US', optsB = PHONE, localeB = 'en-US') {
  const r = await apiCreate({ name: 'Somchai' });
  const j = await apiJoin(r.code, 'Dara');
  const a = await newPage(optsA, localeA);
  const b = await newPage(optsB, localeB);
  await adoptSeat(a, r.code, r.token, 0, 'Somchai');
  await adoptSeat(b, r.code, j.token, 1, 'Dara');
  for (const p of [a, b]) await p.goto(`${BASE}/p/${r.code}`);
  await a.click(tid('start'));
  await until('the game on both', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);
  return { r, j, a, b };
}

/** A started table whose players have each made five moves (pawn pushes on the board): enough
 *  of a game, once it ends, for a recommendation (the server asks five moves of one's own). */
async function playedTable() {
  const t = await startedTable();
  for (const mv of ['a3a4', 'h6h5', 'b3b4', 'g6g5', 'c3c4', 'f6f5', 'd3d4', 'e6e5', 'h3h4', 'a6a5']) await playMove([t.a, t.b], mv);
  return t;
}

/** Puts a seat from the API into a page's storage, the way the client keeps it. */
async function adoptSeat(page, code, token, seat, name) {
  await page.goto(`${BASE}/`);
  await page.evaluate(([c, s]) => localStorage.setItem(`makruk.seat.${c}`, JSON.stringify(s)), [code, { token, seat, name }]);
}

async function boardBox(page) {
  const b = await page.locator(tid('board')).boundingBox();
  return `${Math.round(b.x)},${Math.round(b.y)},${Math.round(b.width)}x${Math.round(b.height)}`;
}

async function checkNoOverflow(page, label) {
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(over <= 1, `${label}: no horizontal scrolling at ${await page.evaluate(() => window.innerWidth)} px (overflow ${over}px)`);
}

async function checkTapTargets(page, label) {
  const small = await page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('button, a.btn, a.big, .langs button, input[type=checkbox]')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (el.closest('.movelist')) continue; // the move list's entries are a list, with arrows and keys beside
      if (el.matches('input[type=checkbox]')) {
        const lab = el.closest('label')?.getBoundingClientRect();
        if (lab && lab.height >= 44) continue;
      }
      if (r.height < 43.5 || r.width < 43.5) out.push(`${el.textContent?.trim() || el.getAttribute('aria-label') || el.tagName} ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    return out;
  });
  assert(small.length === 0, `${label}: touch targets >= 44 px (too small: ${small.join('; ')})`);
}

// The API called directly; My games on a home page.

async function apiJson(method, p, body) {
  const r = await fetch(`${BASE}${p}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let j = null;
  try {
    j = await r.json();
  } catch {
    /* not JSON */
  }
  return { status: r.status, json: j, headers: r.headers };
}

async function apiJoin(code, name) {
  const r = await apiJson('POST', `/api/parties/${code}/join`, { name });
  if (r.status !== 200) throw new Error(`join: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** The My games entry of a table on a home page (waits for the list to hold it). */
async function myGame(page, code) {
  const sel = `${tid('my-game')}[data-code="${code}"]`;
  await page.waitForSelector(sel);
  return page.locator(sel);
}

async function refreshMyGames(page) {
  const n = Number((await page.locator(tid('my-games')).getAttribute('data-loaded')) ?? 0);
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await until('My games fetched again', async () => Number((await page.locator(tid('my-games')).getAttribute('data-loaded')) ?? 0) > n);
}

// ---------------------------------------------------------------- tests
const tests = [];
const test = (name, f, always = false) => tests.push({ name, f, always });
/** A test that needs the whole browser (notifications, Web Push): its pages open there. */
const testFull = (name, f) => tests.push({ name, f, always: false, full: true });

// Mates found with `makruk adjudicate`: White mates in 3 with knights; Black mates in 3.
const WHITE_MATE = ['b1d2', 'b8d7', 'd2c4', 'g8e7', 'c4d6'];
const BLACK_MATE = ['b1d2', 'g8e7', 'g1e2', 'e7d5', 'a3a4', 'd5e3'];

// What a suite is given: `test` to register its tests, and the helpers.
export const H = {
  test, testFull, sleep, assert, until, newPage, shot, tid, kmNum, text, state, seatOf, myColor, waitV, squareXY, clickMove, dragMove, playMove,
  apiCreate, apiJson, apiJoin, adoptSeat, startedTable, playedTable, boardBox, checkNoOverflow, checkTapTargets, myGame, refreshMyGames,
  startServer, stopServer, PHONE, DESKTOP, WHITE_MATE, BLACK_MATE, ART, ROOT, SLOW, ADMIN_SECRET, CSP_VIOLATIONS,
  get BASE() { return BASE; },
  get browser() { return browser; },
  /** Whether this run started the server (and so may restart it). */
  get server() { return server; },
};

// ---------------------------------------------------------------- run
/**
 * The CPU seconds this run has used so far: this process and every process under it (the
 * server, the browsers and their renderers), those still running and those already ended
 * and waited for. Read from /proc (Linux); null where there is none. Each test's share is
 * printed beside its time, to show what the run's time goes to.
 */
function cpuSoFar() {
  try {
    const tick = 100; // USER_HZ on Linux
    const parent = new Map();
    const used = new Map();
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let stat;
      try {
        stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(f[1]));
      used.set(Number(name), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
    }
    const mine = (pid) => {
      for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true;
      return false;
    };
    let ticks = 0;
    for (const [pid, t] of used) if (pid !== process.pid && mine(pid)) ticks += t;
    const own = process.cpuUsage();
    return ticks / tick + (own.user + own.system) / 1e6;
  } catch {
    return null;
  }
}

/** Runs the registered tests (those of this shard, or matching E2E_ONLY); exits 1 on any failure. */
export async function runAll() {
  let passed = 0;
  let failed = 0;
  try {
    if (!BASE) await startServer();
    else await waitForServer(BASE);
    shell = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    for (const [index, t] of tests.entries()) {
      if ((ONLY && !ONLY.test(t.name)) || !inShard(index, t.always)) continue;
      // The whole browser, started the first time a test needs it.
      if (t.full && !full) full = CHROMIUM === FULL_CHROMIUM ? shell : await chromium.launch({ executablePath: FULL_CHROMIUM, args: ARGS });
      browser = t.full ? full : shell;
      const t0 = Date.now();
      const cpu0 = cpuSoFar();
      let verdict = 'ok  ';
      let why = ''; // a failure's first lines, printed under it
      try {
        await t.f();
        passed++;
      } catch (e) {
        failed++;
        verdict = 'FAIL';
        why = `\n     ${e?.stack?.split('\n').slice(0, 3).join('\n     ') ?? e}`;
        for (const ctx of browser.contexts()) {
          for (const [i, pg] of ctx.pages().entries()) await pg.screenshot({ path: path.join(ART, `fail-${failed}-${i}.png`) }).catch(() => {});
        }
      }
      for (const ctx of browser.contexts()) await ctx.close().catch(() => {});
      const cpu1 = cpuSoFar();
      const cpu = cpu0 === null || cpu1 === null ? '' : `, CPU ${(cpu1 - cpu0).toFixed(1)} s`;
      console.log(`${verdict} ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s${cpu})${why}`);
    }
  } catch (e) {
    failed++;
    console.log(`FAIL setup: ${e?.stack ?? e}`);
  } finally {
    for (const b of new Set([shell, full])) await b?.close().catch(() => {});
    await stopServer();
    if (dataDir && !process.env.E2E_KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
}
