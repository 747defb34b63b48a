#!/usr/bin/env node
// Browser tests of the web client against the real server (build/makruk serve).
//
//   node tests/e2e/run.mjs             starts build/makruk serve itself (free loopback
//                                      port, temporary data directory, --test-clock) and
//                                      stops it after; MAKRUK_BINARY=path picks the binary
//   BASE_URL=http://127.0.0.1:8080 node tests/e2e/run.mjs    uses a running server
//   MAKRUK_WEB=dir serves another build of the client; E2E_ARTIFACTS=dir keeps the
//   screenshots elsewhere; E2E_HUB_THREADS=N gives the server N hub threads;
//   E2E_ONLY=regex runs the tests whose names match; E2E_SHARD=k/n runs every n-th test
//   from the k-th (0-based), with a server of its own (two shards side by side halve the wait)
//
// Needs web/dist (scripts/build-web.sh), web/node_modules (playwright-core) and Debian's
// Chromium (/usr/bin/chromium, or CHROMIUM=path). Screenshots go to tests/e2e/artifacts/.
// The last line is "e2e: N passed, M failed"; the exit status is 1 on any failure.
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

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
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

let browser;
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

/** The page-space centre of a square on the board, given the board's orientation. */
async function squareXY(page, sq) {
  const box = await page.locator(`${tid('board')} cg-board`).boundingBox();
  const orientation = await page.locator(tid('board')).getAttribute('data-orientation');
  const f = sq.charCodeAt(0) - 97;
  const r = Number(sq[1]) - 1;
  const size = box.width / 8;
  const col = orientation === 'black' ? 7 - f : f;
  const row = orientation === 'black' ? r : 7 - r;
  return { x: box.x + (col + 0.5) * size, y: box.y + (row + 0.5) * size };
}

async function clickMove(page, move, touch) {
  const a = await squareXY(page, move.slice(0, 2));
  const b = await squareXY(page, move.slice(2, 4));
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
  const a = await squareXY(page, move.slice(0, 2));
  const b = await squareXY(page, move.slice(2, 4));
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

// ---------------------------------------------------------------- tests
const tests = [];
const test = (name, f, always = false) => tests.push({ name, f, always });

// Mates found with `makruk adjudicate`: White mates in 3 with knights; Black mates in 3.
const WHITE_MATE = ['b1d2', 'b8d7', 'd2c4', 'g8e7', 'c4d6'];
const BLACK_MATE = ['b1d2', 'g8e7', 'g1e2', 'e7d5', 'a3a4', 'd5e3'];

const shared = {};

test('home: three buttons, rules, language picker (en → ไทย → ខ្មែរ, kept on reload)', async () => {
  const page = await newPage(PHONE, 'en-US');
  await page.goto(`${BASE}/`);
  await page.waitForSelector(tid('home'));
  assert((await text(page, 'h1')) === 'Makruk', 'English title from navigator.language');
  for (const id of ['play-friends', 'join-code', 'practise-cpu']) assert(await page.locator(tid(id)).isVisible(), `${id} visible`);
  assert((await page.locator(`${tid('rules')} li`).count()) >= 5, 'rules in brief');
  await checkNoOverflow(page, 'home 360');
  await checkTapTargets(page, 'home 360');
  await shot(page, 'home-360-en');
  await page.click('[data-lang="th"]');
  await until('Thai title', async () => (await text(page, 'h1')) === 'หมากรุกไทย');
  assert((await text(page, tid('play-friends'))).includes('เล่นกับเพื่อน'), 'Thai button');
  await shot(page, 'home-360-th');
  await page.click('[data-lang="km"]');
  await until('Khmer button', async () => (await text(page, tid('play-friends'))).includes('លេងជាមួយមិត្តភក្តិ'));
  assert((await page.evaluate(() => document.documentElement.lang)) === 'km', 'html lang=km');
  await shot(page, 'home-360-km');
  await page.reload();
  await until('Khmer kept after reload', async () => (await text(page, tid('play-friends'))).includes('លេងជាមួយមិត្តភក្តិ'));
  await page.context().close();

  const th = await newPage(DESKTOP, 'th-TH');
  await th.goto(`${BASE}/`);
  await until('Thai from navigator.language', async () => (await text(th, 'h1')) === 'หมากรุกไทย');
  await shot(th, 'home-1280-th');
  await th.goto(`${BASE}/new`);
  await th.waitForSelector(tid('create'));
  await shot(th, 'newtable-1280-th');
  await th.context().close();
  const km = await newPage(PHONE, 'km-KH');
  await km.goto(`${BASE}/new`);
  await km.waitForSelector(tid('create'));
  await checkNoOverflow(km, 'new table 360 km');
  await checkTapTargets(km, 'new table 360 km');
  await shot(km, 'newtable-360-km');
  await km.context().close();
});

test('friends: create, join by link, seats fill live, start, mate by clicking and dragging, step through, rematch, resign', async () => {
  const a = await newPage(DESKTOP, 'en-US');
  const b = await newPage(PHONE, 'th-TH');
  b.touch = true;
  await a.goto(`${BASE}/`);
  await a.click(tid('play-friends'));
  await a.waitForSelector(tid('create'));
  await a.fill(tid('name'), 'Somchai <b>&amp;</b>');
  await a.click(tid('create'));
  await a.waitForSelector(tid('invite-code'));
  const code = await text(a, tid('invite-code'));
  assert(/^[A-Z0-9]{6}$/.test(code), `a 6-character code (${code})`);
  shared.code = code;
  // Waits for the image itself (it loads after the code is shown).
  const qr = await a
    .waitForFunction((sel) => {
      const img = document.querySelector(sel);
      return img && img.complete && img.naturalWidth > 0;
    }, tid('qr'), { timeout: 10000 })
    .then(() => true, () => false);
  assert(qr, 'the QR image loads');
  const line = await a.locator(tid('share-line')).getAttribute('href');
  // LINE's documented share address (social-plugins.line.me/lineit/share), with the invite link.
  assert(new URL(line).origin === 'https://social-plugins.line.me' && new URL(line).pathname === '/lineit/share', `LINE's share address (${line})`);
  assert(new URL(line).searchParams.get('url')?.includes(`/p/${code}`), `LINE gets the invite link (${line})`);
  assert((await a.locator(`${tid('seats')} .seat.empty`).count()) === 1, 'one empty seat');
  await shot(a, 'invite-1280-en-waiting');

  await b.goto(`${BASE}/p/${code}`);
  await b.waitForSelector(tid('join-prompt'));
  await b.fill(tid('name'), 'Dara');
  await b.click(tid('join'));
  await b.waitForSelector(tid('invite'));
  await until('host sees Dara live', async () => (await text(a, tid('seat-1'))).includes('Dara'));
  // the name with markup is shown as text, never as HTML
  assert((await text(b, tid('seat-0'))).includes('Somchai <b>&amp;</b>'), 'name rendered as text');
  assert((await b.locator(`${tid('seat-0')} b`).count()) === 0, 'no HTML from names');
  assert((await b.locator(tid('start')).count()) === 0, 'the guest has no Start button');
  await checkNoOverflow(b, 'invite 360');
  await checkTapTargets(b, 'invite 360');
  await shot(b, 'invite-360-th-full');
  await a.waitForSelector(tid('start'));
  await shot(a, 'invite-1280-en-ready');
  await a.click(tid('start'));
  await a.waitForSelector(tid('game'));
  await b.waitForSelector(tid('game'));
  await waitV(a, 0);
  await waitV(b, 0);
  await shot(b, 'game-360-th-start');
  await shot(a, 'game-1280-en-start');
  await checkNoOverflow(b, 'game 360');
  await checkTapTargets(b, 'game 360');

  // White's moves by clicking (tapping on the phone), Black's by dragging.
  const pages = [a, b];
  let s;
  for (const [i, m] of WHITE_MATE.entries()) s = await playMove(pages, m, i % 2 === 0 ? 'click' : 'drag');
  assert(s.result === '1-0' && s.reason === 'checkmate', `White mates (${s.result} ${s.reason})`);
  const white = (await myColor(a)) === 'w' ? a : b;
  const black = white === a ? b : a;
  await until('result shown', async () => (await text(white, tid('status-main'))) !== '');
  assert((await white.locator(tid('status')).getAttribute('data-reason')) === 'checkmate', 'reason on the page');
  const wMain = await text(white, tid('status-main'));
  const bMain = await text(black, tid('status-main'));
  assert(/You win|คุณชนะ/.test(wMain), `winner told (${wMain})`);
  assert(/You lost|คุณแพ้/.test(bMain), `loser told (${bMain})`);
  assert(/checkmate|รุกจน/.test(await text(white, tid('status-sub'))), 'reason in words');
  assert((await text(b, tid('moves'))).includes('ม'), `Thai SAN on the Thai page (${await text(b, tid('moves'))})`);
  assert((await text(a, tid('moves'))).includes('Nxd6#'), `SAN on the English page (${await text(a, tid('moves'))})`);
  assert((await a.locator('cg-board square.check').count()) === 1, 'the mated Khun is highlighted');
  const sounds = await a.evaluate(() => ({ ...window.__makrukSounds }));
  assert(sounds.move >= 2 && sounds.end === 1, `sounds for moves and the end (${JSON.stringify(sounds)})`);
  const bSounds = await b.evaluate(() => ({ ...window.__makrukSounds }));
  assert(bSounds.move >= 2 && bSounds.end === 1, `the phone's sounds too (${JSON.stringify(bSounds)})`);
  assert((await a.locator('cg-board square.last-move').count()) === 2, 'the last move is highlighted');
  await shot(a, 'game-1280-en-mate');
  await shot(b, 'game-360-th-mate');

  // step through the moves
  await a.click(tid('nav-first'));
  const startPl = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR';
  await until('first position', async () => (await a.locator(tid('board')).getAttribute('data-fen')).startsWith(startPl));
  await a.click(tid('nav-next'));
  await until('after 1 ply', async () => (await a.locator(tid('board')).getAttribute('data-fen')).startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/3N4/R1SKMSNR'));
  assert((await text(a, tid('viewing'))).includes('1'), 'viewing move 1');
  await a.keyboard.press('End');
  await until('back to the latest', async () => (await a.locator(tid('board')).getAttribute('data-fen')) === s.fen);

  // rematch by agreement: Black offers, White sees the offer and accepts; colours swap (swap first player is on)
  const game1 = s.game;
  await black.click(tid('rematch'));
  await white.waitForSelector(tid('rematch-accept'));
  await black.waitForSelector(tid('rematch-withdraw'));
  assert((await state(a)).game === game1, 'an offer alone starts nothing');
  await shot(white, `game-${white === a ? '1280-en' : '360-th'}-rematch-offered`);
  await white.click(tid('rematch-accept'));
  await until('game 2 on both', async () => (await state(a))?.game !== game1 && (await state(b))?.game !== game1);
  const s2 = await state(a);
  assert(s2.number === 2, 'game number 2');
  assert((await myColor(white)) === 'b', 'colours swapped');
  await shot(b, 'game-360-th-rematch');

  // resign with confirmation (cancel first, then yes)
  await a.click(tid('resign'));
  await a.waitForSelector(tid('resign-dialog'));
  await shot(a, 'game-1280-en-resign-confirm');
  await a.click(tid('resign-dialog-no'));
  await sleep(200);
  assert((await state(a)).result === '*', 'cancel does not resign');
  await a.click(tid('resign'));
  await a.click(tid('resign-dialog-yes'));
  await until('resigned', async () => (await state(b))?.reason === 'resignation');
  const s3 = await state(b);
  const aColor = await myColor(a);
  assert(s3.result === (aColor === 'w' ? '0-1' : '1-0'), 'the other side wins');
  await until('reason in Thai', async () => (await text(b, tid('status-sub'))).includes('ยอมแพ้'));
  await shot(b, 'game-360-th-resigned');

  // a third player who comes by the link watches
  const c = await newPage(PHONE, 'en-US');
  await c.goto(`${BASE}/p/${code}`);
  await c.waitForSelector(tid('table-full'));
  assert((await c.locator(tid('join')).count()) === 0, 'no Join on a full table');
  await c.click(tid('watch'));
  await c.waitForSelector(tid('game'));
  assert((await c.locator(`${tid('actions')} button`).count()) === 0, 'a spectator has no buttons');
  assert((await seatOf(c)) === null, 'spectator seat');
  await shot(c, 'game-360-en-spectator');
  await c.context().close();

  // a reload keeps the seat (token kept in localStorage)
  await b.reload();
  await b.waitForSelector(tid('game'));
  await until('seat kept after reload', async () => (await seatOf(b)) === 1);
  shared.friendPages = [a, b];
  for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
});

test('black mates too (drag on the phone, click on the desktop)', async () => {
  const a = await newPage(DESKTOP, 'en-US');
  const b = await newPage(PHONE, 'en-US');
  b.touch = true;
  const r = await apiCreate({ name: 'Host', swapColors: false });
  await adoptSeat(a, r.code, r.token, 0, 'Host');
  await a.goto(`${BASE}/p/${r.code}`);
  await a.waitForSelector(tid('invite'));
  await b.goto(`${BASE}/join`);
  await b.fill(tid('code'), r.code.toLowerCase());
  await b.fill(tid('name'), 'Guest');
  await b.click(tid('join'));
  await b.waitForSelector(tid('invite'));
  await a.click(tid('start'));
  await b.waitForSelector(tid('game'));
  await waitV(b, 0);
  let s;
  for (const [i, m] of BLACK_MATE.entries()) s = await playMove([a, b], m, i % 2 === 0 ? 'click' : 'drag');
  assert(s.result === '0-1' && s.reason === 'checkmate', `Black mates (${s.result} ${s.reason})`);
  await shot(b, 'game-360-en-black-mates');
  await a.context().close();
  await b.context().close();
});

// A position with no pawns left where Black has fewer pieces (reached from the start by
// h3h4 c6c5 … g1f3; checked with `makruk adjudicate --counting declare`).
const COUNT_FEN = '1n1k1s1r/8/3M~3n/8/8/5Nm~1/8/1NSKMS2 b - - 0 20';

test('declaration mode: join by typed code, Start counting, n / limit beside the counter, Stop counting', async () => {
  const a = await newPage(DESKTOP, 'en-US');
  const b = await newPage(PHONE, 'km-KH');
  b.touch = true;
  const r = await apiCreate({ name: 'Anan', counting: 'declare', swapColors: false, fen: COUNT_FEN });
  await adoptSeat(a, r.code, r.token, 0, 'Anan');
  await a.goto(`${BASE}/p/${r.code}`);
  await a.waitForSelector(tid('invite'));
  // join with the typed code, from the home page
  await b.goto(`${BASE}/`);
  await b.click(tid('join-code'));
  await b.fill(tid('code'), r.code);
  await b.fill(tid('name'), 'សុភា');
  await b.click(tid('join'));
  await b.waitForSelector(tid('invite'));
  await a.click(tid('start'));
  await a.waitForSelector(tid('game'));
  await b.waitForSelector(tid('game'));
  const s0 = await waitV(a, 0);
  assert(s0.turn === 'b', 'Black to move in the position');
  const counter = (await myColor(a)) === 'b' ? a : b;
  const other = counter === a ? b : a;
  await until('Start counting offered', async () => (await counter.locator(tid('count')).count()) === 1);
  assert((await other.locator(tid('count')).count()) === 0, 'the stronger side is not offered a count');
  const before = await boardBox(counter);
  const beforeOther = await boardBox(other);
  await shot(counter, 'count-before');
  await counter.click(tid('count'));
  const s1 = await until('count running', async () => {
    const s = await state(counter);
    return s?.count ? s : null;
  });
  assert(s1.count.side === 'b' && s1.count.n === 0 && s1.count.limit === 64, `board count 0/64 (${JSON.stringify(s1.count)})`);
  const bar = (await counter.locator(`${tid('bar-bottom')}`).getAttribute('data-color')) === 'b' ? 'bar-bottom' : 'bar-top';
  // the Khmer page writes the count in Khmer digits
  const num = (s) => (counter === b ? kmNum(s) : s);
  await until('0 / 64 beside the counter', async () => (await text(counter, tid(`${bar}-count`))).startsWith(num('0 / 64')));
  assert(await counter.locator(`${tid(`${bar}-count`)}.show`).isVisible(), 'count badge visible');
  assert((await boardBox(counter)) === before, `no layout jump when the count appears (${before} → ${await boardBox(counter)})`);
  assert((await boardBox(other)) === beforeOther, 'no layout jump on the other page');
  await until('other page sees the count', async () => (await other.locator('.pbar .count.show').count()) === 1);
  await until('Stop counting offered', async () => (await counter.locator(tid('stop')).count()) === 1);
  await shot(counter, 'count-0-64');
  await shot(other, 'count-other-side');
  // Black moves: the count goes to 1
  const s1b = await state(counter);
  const mv = s1b.legal.find((m) => m.startsWith('h6')) ?? s1b.legal[0];
  await playMove([a, b], mv, 'drag');
  await until('1 / 64', async () => (await text(counter, tid(`${bar}-count`))).startsWith(num('1 / 64')));
  await shot(counter, 'count-1-64');
  // White moves: the count stays
  const s2 = await state(counter);
  const wm = s2.legal[0];
  await playMove([a, b], wm, 'click');
  assert((await state(counter)).count?.n === 1, 'only the counting side adds');
  await counter.click(tid('stop'));
  await until('count stopped', async () => (await state(counter))?.count === null);
  await until('badge hidden', async () => (await counter.locator('.pbar .count.show').count()) === 0);
  assert((await boardBox(counter)) === before, 'no layout jump when the count goes');
  await until('Start counting offered again', async () => (await counter.locator(tid('count')).count()) === 1);
  await shot(counter, 'count-stopped');
  await a.context().close();
  await b.context().close();
});

test('practice against the CPU (level 1), and reconnecting after the server restarts', async () => {
  const p = await newPage(PHONE, 'en-US');
  p.touch = true;
  await p.goto(`${BASE}/`);
  await p.click(tid('practise-cpu'));
  await p.waitForSelector(tid('cpu-level'));
  await p.click(`${tid('cpu-level')} button[data-value="1"]`);
  await p.fill(tid('name'), 'Learner');
  await checkTapTargets(p, 'practice 360');
  await shot(p, 'practice-360-en');
  await p.click(tid('create'));
  await p.waitForSelector(tid('game'));
  const s0 = await waitV(p, 0);
  assert((await myColor(p)) === 'w', 'the creator plays White first');
  assert(s0.turn === 'w', 'White to move');
  await playMove([p], 'e3e4', 'click');
  await until('the CPU answers', async () => (await state(p))?.moves.length >= 2, 20000);
  await until('my turn again', async () => (await p.locator(tid('board')).getAttribute('data-myturn')) === 'true');
  await shot(p, 'cpu-360-en');

  // the mute switch silences the sounds, and stays set
  await p.click(tid('mute'));
  assert((await p.locator(tid('mute')).getAttribute('aria-pressed')) === 'true', 'muted');
  const before = await p.evaluate(() => ({ ...window.__makrukSounds }));
  const sm = await state(p);
  await playMove([p], sm.legal.includes('a3a4') ? 'a3a4' : sm.legal[0], 'click');
  await until('the CPU answers again', async () => (await state(p))?.moves.length >= 4, 20000);
  const after = await p.evaluate(() => ({ ...window.__makrukSounds }));
  assert(JSON.stringify(before) === JSON.stringify(after), `no sound while muted (${JSON.stringify(before)} → ${JSON.stringify(after)})`);
  assert((await p.evaluate(() => localStorage.getItem('makruk.mute'))) === '1', 'mute is remembered');

  // a dropped socket reconnects and resyncs
  await p.evaluate(() => window.__makruk.drop());
  await until('offline banner', async () => (await p.locator(`${tid('conn')}.show`).count()) === 1, 3000);
  await until('back online', async () => (await p.locator(`${tid('conn')}.show`).count()) === 0, 10000);

  if (server) {
    // the server goes away and comes back on the same port with the same data
    await stopServer();
    await until('offline shown', async () => (await p.locator(`${tid('conn')}.show`).count()) === 1, 5000);
    await shot(p, 'cpu-360-en-offline');
    await sleep(800);
    await startServer();
    await until('reconnected', async () => (await p.locator(`${tid('conn')}.show`).count()) === 0, 20000);
    const s = await state(p);
    assert(s.moves.length >= 2, 'the game came back from storage');
    const v = s.v;
    const mv = s.legal.find((m) => m === 'h3h4') ?? s.legal[0];
    await clickMove(p, mv, true);
    await waitV(p, v + 1);
  }
  await p.context().close();
});

test('game screen at 1280 px and 360 px: board fills the space, names and labels readable', async () => {
  const a = await newPage(DESKTOP, 'th-TH');
  const r = await apiCreate({ name: 'ผู้เล่น', cpu: 1, variant: 'ouk' });
  await adoptSeat(a, r.code, r.token, 0, 'ผู้เล่น');
  await a.goto(`${BASE}/p/${r.code}`);
  await a.waitForSelector(tid('game'));
  await waitV(a, 0);
  const box = await a.locator(tid('board')).boundingBox();
  assert(box.width >= 560, `a big board on the desktop (${box.width})`);
  await shot(a, 'ouk-1280-th');
  await a.click('[data-lang="km"]');
  await until('Khmer labels', async () => (await text(a, tid('status-main'))).includes('វេន'));
  await shot(a, 'ouk-1280-km');
  await a.context().close();
  const p = await newPage(PHONE, 'km-KH');
  await adoptSeat(p, r.code, r.token, 0, 'ผู้เล่น');
  await p.goto(`${BASE}/p/${r.code}`);
  await p.waitForSelector(tid('game'));
  const pb = await p.locator(tid('board')).boundingBox();
  assert(pb.width >= 340, `the board spans the phone (${pb.width})`);
  await checkNoOverflow(p, 'ouk game 360');
  await shot(p, 'ouk-360-km');
  await p.context().close();
});

test('house rules: legal-move dots and piece labels follow the table (on, then off)', async () => {
  for (const on of [true, false]) {
    const p = await newPage(PHONE, 'th-TH');
    p.touch = true;
    const r = await apiCreate({ name: 'กานดา', cpu: 1, showLegal: on, labels: on });
    await adoptSeat(p, r.code, r.token, 0, 'กานดา');
    await p.goto(`${BASE}/p/${r.code}`);
    await p.waitForSelector(tid('game'));
    await until('my turn', async () => (await p.locator(tid('board')).getAttribute('data-myturn')) === 'true');
    const a = await squareXY(p, 'e3');
    await p.touchscreen.tap(a.x, a.y);
    await sleep(150);
    const dots = await p.locator('cg-board square.move-dest').count();
    assert(on ? dots === 1 : dots === 0, `dots ${on ? 'shown' : 'hidden'} (${dots})`);
    await shot(p, `rules-${on ? 'on' : 'off'}-360-th-selected`);
    const labelled = await p.locator('.board-col.labels').count();
    assert(labelled === (on ? 1 : 0), `labels ${on ? 'on' : 'off'}`);
    const content = await p.evaluate(() => getComputedStyle(document.querySelector('piece.k-piece'), '::after').content);
    if (on) assert(content.includes('ขุน'), `Thai label on the Khun (${content})`);
    await shot(p, `rules-${on ? 'on' : 'off'}-360-th`);
    // the move still goes through when the dots are hidden
    const b = await squareXY(p, 'e4');
    const v = (await state(p)).v;
    await p.touchscreen.tap(b.x, b.y);
    await waitV(p, v + 1);
    await p.context().close();
  }
});

test('Ouk Chatrang: a threefold repetition offers Claim draw, and claiming draws', async () => {
  const a = await newPage(DESKTOP, 'km-KH');
  const b = await newPage(DESKTOP, 'en-US');
  const r = await apiCreate({ name: 'Sokha', variant: 'ouk', swapColors: false });
  await adoptSeat(a, r.code, r.token, 0, 'Sokha');
  await a.goto(`${BASE}/p/${r.code}`);
  await a.waitForSelector(tid('invite'));
  await b.goto(`${BASE}/p/${r.code}`);
  await b.fill(tid('name'), 'Vuthy');
  await b.click(tid('join'));
  await b.waitForSelector(tid('invite'));
  await a.click(tid('start'));
  await b.waitForSelector(tid('game'));
  await waitV(a, 0);
  const shuffle = ['g1e2', 'g8e7', 'e2g1', 'e7g8'];
  for (const m of [...shuffle, ...shuffle]) await playMove([a, b], m, 'click');
  const s = await state(a);
  assert(s.canClaim && s.repetitions >= 3, `a claim is possible (${s.repetitions})`);
  await until('Claim draw on both', async () => (await a.locator(tid('claim')).count()) === 1 && (await b.locator(tid('claim')).count()) === 1);
  await shot(b, 'ouk-claim-1280-en');
  await b.click(tid('claim'));
  await until('drawn by repetition', async () => (await state(a))?.reason === 'repetition');
  assert((await state(a)).result === '1/2-1/2', 'a draw');
  await until('the draw in Khmer', async () => (await text(a, tid('status-main'))) === 'ស្មើ');
  await shot(a, 'ouk-claimed-1280-km');
  await a.context().close();
  await b.context().close();
});

test('a wrong code says so', async () => {
  const p = await newPage(PHONE, 'en-US');
  await p.goto(`${BASE}/join`);
  await p.fill(tid('code'), 'ZZZZZZ');
  await p.fill(tid('name'), 'X');
  await p.click(tid('join'));
  await until('not found message', async () => /No table/.test(await text(p, tid('error'))));
  await p.goto(`${BASE}/p/ZZZZZZ`);
  await p.waitForSelector(tid('missing'));
  await p.context().close();
});

// ---------------------------------------------------------------- turn-based tables and Web Push
const DAY = 24 * 3600 * 1000;

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

/** Records navigator.setAppBadge / clearAppBadge calls in window.__badge (what the page asked for). */
async function watchBadge(ctx) {
  await ctx.addInitScript(() => {
    window.__badge = null;
    const set = (n) => {
      window.__badge = n === undefined ? 'flag' : n;
      return Promise.resolve();
    };
    const clear = () => {
      window.__badge = 0;
      return Promise.resolve();
    };
    try {
      Object.defineProperty(Navigator.prototype, 'setAppBadge', { value: set, configurable: true, writable: true });
      Object.defineProperty(Navigator.prototype, 'clearAppBadge', { value: clear, configurable: true, writable: true });
    } catch {
      /* ignore */
    }
  });
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

test('turn-based: a table with a start time; the invite shows it in local time with a countdown and an .ics link; Start waits for the time', async () => {
  const a = await newPage({ ...PHONE, timezoneId: 'Asia/Bangkok' }, 'en-US');
  a.touch = true;
  await a.goto(`${BASE}/new`);
  await a.waitForSelector(tid('mode'));
  assert((await a.locator(`${tid('mode')} button[data-value="live"]`).getAttribute('aria-pressed')) === 'true', 'live by default');
  await a.click(`${tid('mode')} button[data-value="turn"]`);
  await until('the turn-based promise shown', async () => /45 days/.test(await text(a, tid('mode-hint'))));
  assert(await a.locator(tid('starts-at')).isHidden(), 'no start time until asked for');
  await a.click(tid('pick-time'));
  await a.waitForSelector(`${tid('starts-at')}:visible`);
  assert(/Asia\/Bangkok|Bangkok/.test(await text(a, '#starts-at-hint')), `the time zone is named (${await text(a, '#starts-at-hint')})`);
  await a.fill(tid('name'), 'Malee');
  // validation: in the past, then more than a year ahead
  await a.fill(tid('starts-at'), '2020-01-01T10:00');
  await a.click(tid('create'));
  await until('past refused', async () => /future/.test(await text(a, tid('error'))));
  assert(/^\/new$/.test(new URL(a.url()).pathname), 'still on the form');
  const far = new Date(Date.now() + 400 * DAY);
  const ymd = (d, tz) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  await a.fill(tid('starts-at'), `${ymd(far, 'Asia/Bangkok')}T10:00`);
  await a.click(tid('create'));
  await until('too far refused', async () => /within a year/.test(await text(a, tid('error'))));
  // two days ahead at 19:00 in Bangkok (UTC+7, no daylight saving)
  const day = ymd(new Date(Date.now() + 2 * DAY), 'Asia/Bangkok');
  const [y, m, d] = day.split('-').map(Number);
  const startsAt = Date.UTC(y, m - 1, d, 12, 0);
  await a.fill(tid('starts-at'), `${day}T19:00`);
  await checkNoOverflow(a, 'new turn-based table 360');
  await checkTapTargets(a, 'new turn-based table 360');
  await shot(a, 'newtable-360-en-turn-time');
  await a.screenshot({ path: path.join(ART, 'newtable-360-en-turn-time-full.png'), fullPage: true });
  await a.click(tid('create'));
  await a.waitForSelector(tid('invite-code'));
  const code = await text(a, tid('invite-code'));
  const party = (await apiJson('GET', `/api/parties/${code}`)).json.party;
  assert(party.mode === 'turn', `mode sent (${party.mode})`);
  assert(party.startsAt === startsAt, `startsAt sent (${party.startsAt} vs ${startsAt})`);
  assert((await text(a, tid('invite-summary'))).includes('Turn-based'), 'Turn-based on the table info');
  const when = await text(a, tid('starts-at-text'));
  const hm = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Bangkok', hour: 'numeric', minute: '2-digit' }).format(new Date(startsAt));
  assert(when.includes(hm) && /Indochina/.test(when), `local time with the zone's name (${when}; ${hm})`);
  const cd1 = await text(a, tid('countdown'));
  assert(/^Starts in (1 day|2 days)( \d{1,2} h)?$/.test(cd1), `a countdown with its units (${cd1})`);
  const left1 = await a.locator(tid('countdown')).getAttribute('data-left');
  await until('the countdown ticks', async () => (await a.locator(tid('countdown')).getAttribute('data-left')) !== left1, 3000);
  const ics = a.locator(tid('ics'));
  assert((await ics.getAttribute('href')) === `/api/parties/${code}/event.ics`, 'the .ics link');
  assert((await ics.getAttribute('download')) !== null, 'the .ics link downloads');
  const ir = await fetch(`${BASE}/api/parties/${code}/event.ics`);
  const ibody = await ir.text();
  assert(ir.status === 200 && (ir.headers.get('content-type') ?? '').startsWith('text/calendar'), `text/calendar (${ir.status} ${ir.headers.get('content-type')})`);
  assert(/^DTSTART[;:]/m.test(ibody) && /BEGIN:VEVENT/.test(ibody), `an event with DTSTART (${ibody.slice(0, 300)})`);
  assert(ibody.includes(`${day.replace(/-/g, '')}T120000Z`) || ibody.includes(`${day.replace(/-/g, '')}T190000`), `DTSTART at the time (${ibody.match(/DTSTART.*$/m)?.[0]})`);

  // a friend in another time zone, in Thai
  const b = await newPage({ ...DESKTOP, timezoneId: 'Europe/Paris' }, 'th-TH');
  await b.goto(`${BASE}/p/${code}`);
  await b.waitForSelector(tid('join-prompt'));
  assert((await text(b, tid('prompt-starts-at'))).length > 0, 'the start time on the join prompt');
  await b.fill(tid('name'), 'Pierre');
  await b.click(tid('join'));
  await b.waitForSelector(tid('countdown'));
  const bWhen = await text(b, tid('starts-at-text'));
  const parisHm = new Intl.DateTimeFormat('th-TH', { timeZone: 'Europe/Paris', hour: 'numeric', minute: '2-digit' }).format(new Date(startsAt));
  assert(bWhen.includes(parisHm.replace(/\s*น\.$/, '')) && bWhen.includes('เริ่ม'), `Paris time in Thai (${bWhen}; ${parisHm})`);
  assert((await text(b, tid('invite-summary'))).includes('ผลัดกันเดิน'), 'turn-based in Thai');
  await shot(b, 'invite-1280-th-scheduled');

  // the host: Start is there but closed until the time
  await until('Start shown', async () => (await a.locator(tid('start')).count()) === 1);
  assert(await a.locator(tid('start')).isDisabled(), 'Start disabled before the time');
  assert((await text(a, tid('start-locked'))).length > 0, 'says why');
  await checkNoOverflow(a, 'scheduled invite 360');
  await checkTapTargets(a, 'scheduled invite 360');
  await shot(a, 'invite-360-en-scheduled');
  await a.locator(tid('schedule')).screenshot({ path: path.join(ART, 'invite-360-en-schedule-card.png') });
  // a Start that reaches the server too early (this device's clock runs ahead) is refused
  // with `conflict`, and the page says why instead of failing
  const h = await newPage(PHONE, 'en-US');
  await h.clock.install({ time: Date.now() });
  await adoptSeat(h, code, (await a.evaluate((c) => JSON.parse(localStorage.getItem(`makruk.seat.${c}`)).token, code)), 0, 'Malee');
  await h.goto(`${BASE}/p/${code}`);
  await h.waitForSelector(tid('start'));
  assert(await h.locator(tid('start')).isDisabled(), 'disabled on the second tab too');
  await h.clock.setSystemTime(startsAt + 60000);
  await until('Start opens when the (device) time comes', async () => !(await h.locator(tid('start')).isDisabled()), 5000);
  await h.click(tid('start'));
  await until('the refusal explained', async () => /Not yet/.test(await text(h, tid('start-refused'))));
  assert((await apiJson('GET', `/api/parties/${code}`)).json.party.status === 'ready', 'not started');
  await shot(h, 'invite-360-en-start-refused');
  await h.context().close();

  // a table a few seconds ahead: Start opens by itself when the time comes, and starts
  const soon = Date.now() + 3000;
  const r = await apiCreate({ name: 'Soon', mode: 'turn', startsAt: soon });
  await apiJoin(r.code, 'Later');
  const c = await newPage(DESKTOP, 'en-US');
  // This device's clock a minute behind while the page opens (however long that takes on a
  // busy machine), then right when the time has come at the server too.
  await c.clock.install({ time: Date.now() - 60000 });
  await adoptSeat(c, r.code, r.token, 0, 'Soon');
  await c.goto(`${BASE}/p/${r.code}`);
  await c.waitForSelector(tid('start'));
  assert(await c.locator(tid('start')).isDisabled(), 'Start disabled before the time');
  await until('the start time passes', async () => Date.now() > soon + 200, 8000);
  await c.clock.setSystemTime(Date.now());
  await until('Start enabled at the time', async () => !(await c.locator(tid('start')).isDisabled()), 8000);
  await until('It is time', async () => /It is time/.test(await text(c, tid('countdown'))));
  await c.click(tid('start'));
  await c.waitForSelector(tid('game'));
  await until('turn-based line on the game', async () => /^Turn-based · ends if no move by /.test(await text(c, tid('turn-info'))));
  for (const p of [a, b, c]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  await a.context().close();
  await b.context().close();
  await c.context().close();
});

test('turn-based: two players; the prompt after the first move; the your-turn title and badge; My games lists both sides and follows the moves', async () => {
  const a = await newPage(DESKTOP, 'en-US');
  const b = await newPage(PHONE, 'th-TH');
  b.touch = true;
  await watchBadge(a.context());
  await watchBadge(b.context());
  await a.goto(`${BASE}/new`);
  await a.fill(tid('name'), 'Somchai');
  await a.click(`${tid('mode')} button[data-value="turn"]`);
  await a.click(tid('create'));
  await a.waitForSelector(tid('invite-code'));
  const code = await text(a, tid('invite-code'));
  assert((await apiJson('GET', `/api/parties/${code}`)).json.party.mode === 'turn', 'a turn-based table');
  await b.goto(`${BASE}/p/${code}`);
  await b.fill(tid('name'), 'Dara');
  await b.click(tid('join'));
  await b.waitForSelector(tid('invite'));
  await a.waitForSelector(tid('start'));
  await a.click(tid('start'));
  await a.waitForSelector(tid('game'));
  await b.waitForSelector(tid('game'));
  await waitV(a, 0);
  await waitV(b, 0);
  const white = (await myColor(a)) === 'w' ? a : b;
  const black = white === a ? b : a;
  const whiteName = white === a ? 'Somchai' : 'Dara';
  const blackName = white === a ? 'Dara' : 'Somchai';
  assert((await text(a, tid('turn-info'))).startsWith('Turn-based · ends if no move by'), `expiry date shown (${await text(a, tid('turn-info'))})`);
  await until('White: your-turn title', async () => (await white.title()).startsWith('● '));
  assert(!(await black.title()).startsWith('●'), `Black: no marker (${await black.title()})`);
  await until('White: badge 1', async () => (await white.evaluate(() => window.__badge)) === 1);
  assert((await white.locator(tid('notify-prompt')).count()) === 0, 'no prompt before the first move');
  const perm = await white.evaluate(() => Notification.permission);
  assert(perm === 'default', `permission not asked on load (${perm})`);

  await playMove([a, b], 'e3e4', 'click');
  await until('the prompt after the first move', async () => (await white.locator(tid('notify-prompt')).count()) === 1);
  assert((await text(white, tid('notify-prompt'))).includes(white === a ? 'Tell me when it’s my turn' : 'แจ้งฉันเมื่อถึงตาของฉัน'), 'the prompt in words');
  assert((await black.locator(tid('notify-prompt')).count()) === 0, 'not for the player who has not moved');
  await until('Black: your-turn title', async () => (await black.title()).startsWith('● '));
  assert((await black.title()).includes(black === b ? 'ตาของคุณ' : 'Your turn'), `localised title (${await black.title()})`);
  await until('White: marker gone', async () => !(await white.title()).startsWith('●'));
  await until('White: badge cleared', async () => (await white.evaluate(() => window.__badge)) === 0);
  await until('Black: badge 1', async () => (await black.evaluate(() => window.__badge)) === 1);
  await shot(white, white === a ? 'turn-1280-en-notify-prompt' : 'turn-360-th-notify-prompt');
  if (white === b) {
    await checkNoOverflow(b, 'turn-based game 360 with prompt');
    await checkTapTargets(b, 'turn-based game 360 with prompt');
  }

  // My games, from a second tab of each browser
  const aHome = await a.context().newPage();
  aHome.consoleErrors = [];
  aHome.on('pageerror', (e) => aHome.consoleErrors.push(String(e)));
  const bHome = await b.context().newPage();
  bHome.consoleErrors = [];
  bHome.on('pageerror', (e) => bHome.consoleErrors.push(String(e)));
  await aHome.goto(`${BASE}/`);
  await bHome.goto(`${BASE}/`);
  const wHome = white === a ? aHome : bHome;
  const bkHome = white === a ? bHome : aHome;
  let wi = await myGame(wHome, code);
  let bi = await myGame(bkHome, code);
  assert((await wi.getAttribute('data-your-turn')) === 'false', 'White waits');
  assert((await text(wHome, `${tid('my-game')}[data-code="${code}"] ${tid('waiting-for')}`)).includes(blackName), `waiting for ${blackName}`);
  assert((await bi.getAttribute('data-your-turn')) === 'true', 'Black to move');
  assert((await bkHome.locator(`${tid('my-game')}[data-code="${code}"] ${tid('your-turn')}`).isVisible()), '"Your turn" shown');
  assert((await text(bkHome, `${tid('my-game')}[data-code="${code}"]`)).includes(whiteName), 'the opponent named');
  await shot(aHome, white === a ? 'home-1280-en-mygames-waiting' : 'home-1280-en-mygames-yourturn');
  await bHome.setViewportSize({ width: 360, height: 740 });
  await checkNoOverflow(bHome, 'home with My games 360');
  await checkTapTargets(bHome, 'home with My games 360');
  await shot(bHome, white === b ? 'home-360-th-mygames-waiting' : 'home-360-th-mygames-yourturn');

  // Black answers: both lists follow when the tab comes back into focus
  await playMove([a, b], 'e6e5', 'drag');
  await refreshMyGames(wHome);
  await refreshMyGames(bkHome);
  wi = await myGame(wHome, code);
  bi = await myGame(bkHome, code);
  await until('White to move in My games', async () => (await wi.getAttribute('data-your-turn')) === 'true');
  assert((await bi.getAttribute('data-your-turn')) === 'false', 'Black waits now');
  assert((await text(bkHome, `${tid('my-game')}[data-code="${code}"] ${tid('waiting-for')}`)).includes(whiteName), `waiting for ${whiteName}`);
  await until('Black: marker gone', async () => !(await black.title()).startsWith('●'));
  await until('White: marker back', async () => (await white.title()).startsWith('● '));
  await shot(wHome, white === a ? 'home-1280-en-mygames-yourturn' : 'home-360-th-mygames-yourturn');

  // tapping an entry opens the table
  await bkHome.click(`${tid('my-game')}[data-code="${code}"]`);
  await bkHome.waitForSelector(tid('game'));
  assert(new URL(bkHome.url()).pathname === `/p/${code}`, 'opens /p/CODE');

  // [Turn on]: permission granted, but no push service is reachable here: a short message,
  // and the game goes on
  await white.context().grantPermissions(['notifications'], { origin: BASE });
  await white.click(tid('notify-on'));
  const msg = await until('a short message', async () => {
    const n = await white.locator(tid('notify-msg')).count();
    return n ? white.locator(tid('notify-msg')) : null;
  }, 30000);
  const kind = await msg.getAttribute('data-kind');
  console.log(`     (turning push on here: ${kind}; ${await white.locator('.notify-box').getAttribute('data-detail')})`);
  assert(kind === 'fail' || kind === 'ok', 'said how it went');
  await shot(white, white === a ? 'turn-1280-en-notify-failed' : 'turn-360-th-notify-failed');
  await playMove([a, b], 'a3a4', 'click');
  assert((await state(a)).moves.length === 3, 'the game goes on');

  // "Not now" is remembered for that table
  const c = await newPage(PHONE, 'en-US');
  const r = await apiCreate({ name: 'Kanya', mode: 'turn', swapColors: false });
  await apiJoin(r.code, 'Niran');
  await adoptSeat(c, r.code, r.token, 0, 'Kanya');
  await c.goto(`${BASE}/p/${r.code}`);
  await c.click(tid('start'));
  await c.waitForSelector(tid('game'));
  await waitV(c, 0);
  await playMove([c], 'e3e4', 'click');
  await c.waitForSelector(tid('notify-prompt'));
  await checkTapTargets(c, 'notify prompt 360');
  await shot(c, 'turn-360-en-notify-prompt');
  await c.click(tid('notify-not-now'));
  await until('prompt gone', async () => (await c.locator(tid('notify-prompt')).count()) === 0);
  await c.reload();
  await c.waitForSelector(tid('game'));
  await waitV(c, 1);
  await sleep(300);
  assert((await c.locator(tid('notify-prompt')).count()) === 0, '"Not now" kept after a reload');
  // Chromium itself logs that incognito contexts (which Playwright's are) have no push
  // service: that is the failure the page handled above, not an error of the page
  const ours = (p) => p.consoleErrors.filter((e) => !/Push API in incognito/.test(e));
  for (const p of [a, b, aHome, bHome, c]) assert(ours(p).length === 0, `no console errors (${ours(p).join(' | ')})`);
  await c.context().close();
  await a.context().close();
  await b.context().close();
});

test('push: the service worker shows a push delivered through the DevTools protocol, localised, tagged by table, and the page refreshes', async () => {
  const p = await newPage(PHONE, 'km-KH');
  const ctx = p.context();
  const r = await apiCreate({ name: 'Sokha', mode: 'turn' });
  await adoptSeat(p, r.code, r.token, 0, 'Sokha');
  await ctx.grantPermissions(['notifications'], { origin: BASE });
  await p.goto(`${BASE}/`);
  await myGame(p, r.code);
  const scope = await p.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert(scope === `${BASE}/`, `the service worker's scope is / (${scope})`);
  const swr = await fetch(`${BASE}/sw.js`);
  assert(swr.status === 200 && /javascript/.test(swr.headers.get('content-type') ?? ''), `/sw.js served as JavaScript (${swr.status} ${swr.headers.get('content-type')})`);

  const cdp = await ctx.newCDPSession(p);
  let registrationId = null;
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
    for (const reg of e.registrations) if (reg.scopeURL === `${BASE}/` && !reg.isDeleted) registrationId = reg.registrationId;
  });
  await cdp.send('ServiceWorker.enable');
  await until('the registration id', async () => registrationId !== null);
  const fetchesBefore = Number(await p.locator(tid('my-games')).getAttribute('data-fetches'));
  const deliver = (data) => cdp.send('ServiceWorker.deliverPushMessage', { origin: BASE, registrationId, data });
  const notes = () =>
    p.evaluate(async () =>
      (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, icon: n.icon, data: n.data })),
    );
  // A push handed to a worker that Chromium is just stopping or starting can be lost on the
  // DevTools side (seen on a loaded machine): until `what` shows, it is delivered again (each
  // repeat replaces the same tag), at most three times. What is checked is what the worker shows.
  const push = async (data, what, shown) => {
    for (let attempt = 1; ; attempt++) {
      await deliver(data);
      try {
        return await until(what, shown, attempt < 3 ? 4000 : 10000);
      } catch (e) {
        if (attempt >= 3) throw new Error(`${e.message}; notifications: ${JSON.stringify(await notes())}`);
      }
    }
  };

  // "your turn", in Thai (the payload's language, not the page's)
  const n1 = await push(JSON.stringify({ kind: 'turn', code: r.code, url: `/p/${r.code}`, opponent: 'Somchai', move: 'e4', result: null, reason: null, lang: 'th' }),
    'the notification', async () => (await notes()).find((n) => n.tag === r.code));
  assert(n1.title === 'ถึงตาของคุณ — Somchai เดิน e4', `Thai title (${n1.title})`);
  assert(n1.body.includes(r.code), `body names the table (${n1.body})`);
  assert(n1.icon.endsWith('/favicon.svg') && n1.data?.url === `/p/${r.code}`, `icon and url (${n1.icon} ${JSON.stringify(n1.data)})`);
  await until('the page refreshed My games', async () => Number(await p.locator(tid('my-games')).getAttribute('data-fetches')) > fetchesBefore);

  // a newer one about the same table replaces it (same tag): game over, in English
  const n2 = await push(JSON.stringify({ kind: 'over', code: r.code, url: `/p/${r.code}`, opponent: 'Somchai', move: null, result: '0-1', reason: 'checkmate', lang: 'en' }),
    'the replacement', async () => {
      const list = (await notes()).filter((n) => n.tag === r.code);
      return list.length === 1 && list[0].title.startsWith('Game over') ? list[0] : null;
    });
  assert(n2.title === 'Game over — Black wins' && n2.body.includes('by checkmate'), `English game over (${n2.title} / ${n2.body})`);

  // the 45-day end, in Khmer, for another table
  const n3 = await push(JSON.stringify({ kind: 'expired', code: 'K7QX2M', url: '/p/K7QX2M', opponent: 'Dara', move: null, result: '1/2-1/2', reason: 'expired', lang: 'km' }),
    'the expiry notification', async () => (await notes()).find((n) => n.tag === 'K7QX2M'));
  assert(n3.title === 'តុបានបញ្ចប់ ដោយសារគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ', `Khmer expiry title (${n3.title})`);

  // not JSON, and empty: the generic notification, never a failure
  await push('not json {', 'generic notification', async () => (await notes()).some((n) => /something happened|មានអ្វីមួយកើតឡើង/.test(n.title)));
  await deliver('');
  await sleep(300);
  const all = await notes();
  assert(all.length >= 3, `notifications kept (${all.length})`);
  console.log(`     (notifications: ${all.map((n) => `${n.tag || '-'}: ${n.title}`).join(' | ')})`);
  assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  await cdp.detach();
  await p.context().close();
});

// Last: it moves the server's clock 45 days ahead, which ends every turn-based table.
test('expiry: 45 days without a move end a turn-based table with no winner or loser; read-only; My games says so', async () => {
  const probe = await apiJson('POST', '/api/test/clock', { advanceMs: 0 });
  assert(probe.status === 200 && typeof probe.json?.now === 'number', `the test clock is on (${probe.status} ${JSON.stringify(probe.json)})`);
  const a = await newPage(PHONE, 'th-TH');
  a.touch = true;
  const b = await newPage(DESKTOP, 'en-US');
  const r = await apiCreate({ name: 'Anong', mode: 'turn', swapColors: false });
  const j = await apiJoin(r.code, 'Bob');
  await adoptSeat(a, r.code, r.token, 0, 'Anong');
  await adoptSeat(b, r.code, j.token, 1, 'Bob');
  await a.goto(`${BASE}/p/${r.code}`);
  await a.click(tid('start'));
  await a.waitForSelector(tid('game'));
  await b.goto(`${BASE}/p/${r.code}`);
  await b.waitForSelector(tid('game'));
  await waitV(a, 0);
  await playMove([a, b], 'e3e4', 'click');
  await playMove([a, b], 'e6e5', 'click');
  const before = (await apiJson('GET', `/api/parties/${r.code}`)).json.party;
  assert(before.status === 'playing' && typeof before.expiresAt === 'number', `running, with an expiry (${JSON.stringify(before)})`);
  assert(before.expiresAt - before.lastMoveAt === 45 * DAY, `45 days after the last move (${before.expiresAt - before.lastMoveAt})`);
  const info = await text(a, tid('turn-info'));
  assert(info.startsWith('ผลัดกันเดิน · โต๊ะจะจบหากไม่มีการเดินภายใน'), `the expiry line in Thai (${info})`);
  await shot(a, 'turn-360-th-playing');

  const adv = await apiJson('POST', '/api/test/clock', { advanceMs: 45 * DAY + 60 * 1000 });
  assert(adv.status === 200, `clock moved (${adv.status})`);
  // looking at the table ends it; the other page is told over its socket
  const after = (await apiJson('GET', `/api/parties/${r.code}`)).json.party;
  assert(after.status === 'expired', `expired (${after.status})`);
  await until('expired state on the open page', async () => (await state(b))?.reason === 'expired', 70000);
  const s = await state(b);
  assert(s.result === '1/2-1/2' && s.legal.length === 0, `no winner or loser, no moves (${s.result} ${s.legal.length})`);
  await until('the result in words (en)', async () => (await text(b, tid('status-main'))) === 'No winner or loser');
  assert(/45 days without a move/.test(await text(b, tid('status-sub'))), `the reason (${await text(b, tid('status-sub'))})`);
  await a.reload();
  await a.waitForSelector(tid('game'));
  await until('the result in words (th)', async () => (await text(a, tid('status-main'))) === 'ไม่มีผู้ชนะหรือผู้แพ้');
  assert((await text(a, tid('status-sub'))).includes('45 วัน'), 'Thai reason');
  for (const p of [a, b]) {
    assert((await p.locator(tid('board')).getAttribute('data-myturn')) === 'false', 'no move possible');
    const buttons = await p.locator(`${tid('actions')} button`).count();
    assert(buttons === 0, `no buttons (${buttons})`);
    assert((await p.locator(tid('go-home')).count()) === 1, 'only the way home');
    assert((await p.locator(tid('notify-prompt')).count()) === 0, 'no prompt');
    assert(!(await p.title()).startsWith('●'), 'no your-turn marker');
  }
  // a tap on a piece does nothing
  const v = (await state(a)).v;
  await clickMove(a, 'a3a4', true);
  await sleep(400);
  assert((await state(a)).v === v && (await state(a)).moves.length === 2, 'nothing played');
  await checkNoOverflow(a, 'expired 360');
  await checkTapTargets(a, 'expired 360');
  await shot(a, 'expired-360-th');
  await shot(b, 'expired-1280-en');
  await a.click('[data-lang="km"]');
  await until('Khmer', async () => (await text(a, tid('status-main'))) === 'គ្មានអ្នកឈ្នះ ឬអ្នកចាញ់');
  await shot(a, 'expired-360-km');

  // My games: ended
  await a.click(tid('go-home'));
  const it = await myGame(a, r.code);
  assert((await it.getAttribute('data-status')) === 'expired', 'listed as expired');
  assert(/បានបញ្ចប់/.test(await text(a, `${tid('my-game')}[data-code="${r.code}"] ${tid('result')}`)), 'ended, in Khmer');
  await shot(a, 'home-360-km-mygames-expired');
  // a newcomer cannot join an ended table
  const c = await newPage(PHONE, 'en-US');
  await c.goto(`${BASE}/p/${r.code}`);
  await c.waitForSelector(tid('join-prompt'));
  assert((await c.locator(tid('table-expired')).count()) === 1 && (await c.locator(tid('join')).count()) === 0, 'no joining an ended table');
  await shot(c, 'expired-360-en-join-prompt');
  for (const p of [a, b, c]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  await a.context().close();
  await b.context().close();
  await c.context().close();
});

// More tests live in tests/e2e/suites/*.mjs, one file per subject, run in name
// order after the ones above. Each exports a function that takes `test` and
// the helpers, and registers its tests with it.
const H = {
  test, sleep, assert, until, newPage, shot, tid, kmNum, text, state, seatOf, myColor, waitV, squareXY, clickMove, dragMove, playMove,
  apiCreate, apiJson, apiJoin, adoptSeat, startedTable, playedTable, boardBox, checkNoOverflow, checkTapTargets, myGame, refreshMyGames,
  startServer, stopServer, PHONE, DESKTOP, WHITE_MATE, BLACK_MATE, ART, ROOT, SLOW, ADMIN_SECRET,
  get BASE() { return BASE; },
  get browser() { return browser; },
};
const SUITES = path.join(HERE, 'suites');
for (const f of fs.existsSync(SUITES) ? fs.readdirSync(SUITES).filter((n) => n.endsWith('.mjs')).sort() : []) {
  (await import(path.join(SUITES, f))).default(H);
}

test('the server sends a Content-Security-Policy, and no page of any test broke it', async () => {
  const r = await fetch(`${BASE}/`);
  const csp = r.headers.get('content-security-policy') ?? '';
  assert(/default-src 'self'/.test(csp) && /frame-ancestors 'none'/.test(csp), `CSP header (${csp})`);
  assert(r.headers.get('referrer-policy') === 'no-referrer', 'Referrer-Policy');
  assert(CSP_VIOLATIONS.length === 0, `no CSP violations (${CSP_VIOLATIONS.join(' | ')})`);
}, true);  // in every shard: it looks at the pages of the tests run before it

test('the home page goes out compressed: brotli copies of the page, its script and style', async () => {
  let plain = 0;
  let sent = 0;
  const page = await fetch(`${BASE}/`, { headers: { 'accept-encoding': 'br' } });
  assert(page.headers.get('content-encoding') === 'br', `index.html in brotli (${page.headers.get('content-encoding')})`);
  const html = await page.text();  // decoded by fetch
  assert(html.includes('<div id="app">'), 'the page decodes');
  const urls = ['/', ...[...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1])];
  for (const u of urls) {
    const raw = await fetch(`${BASE}${u}`, { headers: { 'accept-encoding': 'identity' } });
    const br = await fetch(`${BASE}${u}`, { headers: { 'accept-encoding': 'br' } });
    plain += Number(raw.headers.get('content-length'));
    sent += Number(br.headers.get('content-length'));
    assert((await raw.text()) === (await br.text()), `${u}: the same text either way`);
    if (/\.(js|css)$/.test(u)) assert(br.headers.get('content-encoding') === 'br', `${u} in brotli`);
  }
  console.log(`     (home page: ${plain} bytes plain, ${sent} in brotli)`);
  assert(sent < plain / 3, 'less than a third of the bytes');
});

// ---------------------------------------------------------------- run
let passed = 0;
let failed = 0;
try {
  if (!BASE) await startServer();
  else await waitForServer(BASE);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  for (const [index, t] of tests.entries()) {
    if ((ONLY && !ONLY.test(t.name)) || !inShard(index, t.always)) continue;
    const t0 = Date.now();
    try {
      await t.f();
      passed++;
      console.log(`ok   ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}\n     ${e?.stack?.split('\n').slice(0, 3).join('\n     ') ?? e}`);
      for (const ctx of browser.contexts()) {
        for (const [i, pg] of ctx.pages().entries()) await pg.screenshot({ path: path.join(ART, `fail-${failed}-${i}.png`) }).catch(() => {});
      }
    }
    for (const ctx of browser.contexts()) await ctx.close().catch(() => {});
  }
} catch (e) {
  failed++;
  console.log(`FAIL setup: ${e?.stack ?? e}`);
} finally {
  await browser?.close().catch(() => {});
  await stopServer();
  if (dataDir && !process.env.E2E_KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
