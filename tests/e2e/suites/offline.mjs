// The installed app without a network (issue 26, point 10): once the service worker has
// installed and taken the page, the app itself loads offline (not the offline page); practice
// against the CPU plays on the device (the rules and the CPU's moves from the core in
// WebAssembly); the game is kept on the device, listed after a reload, and opens with its
// moves, the review and the analysis board; the learn pages and the analysis board work;
// a table's page, which needs the server, gets the offline page.
export default function (H) {
  const { test, assert, until, newPage, tid, text, state, clickMove, shot, DESKTOP, PHONE } = H;

  /** Waits for the service worker to control the page (installed, with the app cached, and activated). */
  async function controlled(page) {
    await until(
      'the service worker controls the page',
      () => page.evaluate(() => !!navigator.serviceWorker?.controller),
      30000,
    );
  }

  /** The paths the service worker's caches hold. */
  const cached = (page) =>
    page.evaluate(async () => {
      const out = [];
      for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) out.push(new URL(req.url).pathname);
      return out;
    });

  test('offline: the app loads without a network; practice against the CPU plays on the device, is kept, listed, reviewed; learn and analysis work', async () => {
    const p = await newPage(DESKTOP, 'en-US');
    const ctx = p.context();
    await p.goto(`${H.BASE}/`);
    await p.waitForSelector(tid('home'));
    await controlled(p);
    const files = await cached(p);
    // Chromium has WebAssembly SIMD: the module's SIMD build is the one kept, and not the other.
    for (const f of ['/index.html', '/offline.html', '/core/makruk.js', '/core/makruk-simd.wasm', '/core/makruk.nnue', '/manifest.webmanifest'])
      assert(files.includes(f), `${f} is cached (${files.join(' ')})`);
    assert(!files.includes('/core/makruk.wasm'), 'the build for browsers without SIMD is not kept');
    assert(files.some((f) => /^\/assets\/index-.*\.js$/.test(f)) && files.some((f) => /^\/assets\/index-.*\.css$/.test(f)), 'the app\'s script and style are cached');
    assert(!files.some((f) => f.startsWith('/api/')), 'nothing of the API is cached');

    await ctx.setOffline(true);
    // The home page: the app, from the cache.
    await p.goto(`${H.BASE}/`).catch(() => null);
    await p.waitForSelector(tid('home'));
    assert((await p.locator(tid('offline-page')).count()) === 0, 'offline: the app, not the offline page');

    // Practice against the CPU, level 1: on the device.
    await p.click(tid('practise-cpu'));
    await p.waitForSelector(tid('cpu-level'));
    await until('the practice screen says the game is played here', () => p.locator(tid('practice-offline')).isVisible());
    await p.click(`${tid('cpu-level')} button[data-value="1"]`);
    await p.fill(tid('name'), 'Noi');
    await shot(p, 'offline-practice-1280-en');
    await p.click(tid('create'));
    await p.waitForSelector(tid('local-game'));
    assert(/\/local\/[0-9a-f]{12}$/.test(p.url()), `a game on the device (${p.url()})`);
    const id = p.url().split('/').pop();
    const game = await p.evaluate(() => window.__makruk.local());
    assert(game.level === 1 && game.variant === 'makruk' && game.white === 0, `level 1, Makruk, the player White (${JSON.stringify(game)})`);
    await until('the CPU at the top', async () => (await text(p, `${tid('bar-top')} .pname`)) === 'CPU 1');

    // A few moves; the CPU answers each one.
    const plan = ['e3e4', 'd3d4', 'b1d2'];
    for (let i = 0; i < plan.length; i++) {
      await until('my turn on the board', async () => (await p.locator(tid('board')).getAttribute('data-myturn')) === 'true', 20000);
      const s = await state(p);
      assert(s.moves.length === 2 * i && s.turn === 'w', `my turn after ${2 * i} moves (${s.moves.join(' ')})`);
      const move = s.legal.includes(plan[i]) ? plan[i] : s.legal[0];
      await clickMove(p, move);
      const after = await until('the CPU answers', async () => {
        const x = await state(p);
        return x && x.moves.length === 2 * i + 2 ? x : null;
      }, 20000);
      assert(after.moves[2 * i] === move, `my move played (${after.moves.join(' ')})`);
      assert(s.legal.includes(move), `${move} was legal`);
      const reply = after.moves[2 * i + 1];
      assert(/^[a-h][1-8][a-h][1-8]/.test(reply), `the CPU replied (${reply})`);
      assert((await p.locator(tid('board')).getAttribute('data-fen')) === after.fen, 'the board shows the position after the reply');
    }
    await until('six moves in the list', async () => (await p.locator(`${tid('moves')} button[data-ply]`).count()) === 6);
    const played = (await state(p)).moves;
    await shot(p, 'offline-cpu-1280-en');

    // Resign: the game ends, kept with its result.
    await p.click(tid('resign'));
    await p.click(tid('resign-dialog-yes'));
    await until('the game is over', async () => (await p.locator(tid('status')).getAttribute('data-result')) === '0-1');
    await p.waitForSelector(tid('review'));
    const kept = await p.evaluate((key) => JSON.parse(localStorage.getItem(key)), `makruk.local.${id}`);
    assert(kept.result === '0-1' && kept.reason === 'resignation' && kept.moves === 6, `kept on the device (${JSON.stringify(kept)})`);

    // Still offline, a reload: the home page lists the game.
    await p.goto(`${H.BASE}/`).catch(() => null);
    await p.waitForSelector(tid('home'));
    const item = p.locator(`${tid('local-game-item')}[data-id="${id}"]`);
    await until('the game listed on the home page', () => item.isVisible());
    assert((await item.getAttribute('data-result')) === '0-1', 'with its result');
    assert(/CPU 1/.test(await item.innerText()) && /You lost/.test(await item.innerText()), `named and with its result (${await item.innerText()})`);
    await shot(p, 'offline-home-1280-en');

    // Opened: its moves, and the review by the engine in the browser.
    await item.click();
    await p.waitForSelector(tid('local-game'));
    await until('its six moves', async () => (await p.locator(`${tid('moves')} button[data-ply]`).count()) === 6);
    assert(JSON.stringify((await state(p)).moves) === JSON.stringify(played), 'the same moves');
    await p.selectOption(tid('review-depth'), '6');
    await p.click(tid('review-start'));
    await until('the review done', async () => (await p.locator(tid('review')).getAttribute('data-done')) === 'true', 60000);
    assert(Number(await p.locator(`${tid('review-graph')} svg`).getAttribute('data-points')) === 7, 'an evaluation for each of the seven positions');
    await p.screenshot({ path: `${H.ART}/offline-review-1280-en.png`, fullPage: true });
    await p.click(tid('nav-first'));
    await until('stepped to the start', async () => (await p.locator(tid('board')).getAttribute('data-fen'))?.startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR'));

    // The analysis board, from the game: the same moves, and the engine thinking.
    await p.click(tid('open-analysis'));
    await p.waitForSelector(tid('analysis'));
    await until('the moves on the analysis board', async () => (await p.locator(`${tid('moves')} button[data-ply]`).count()) === 6);
    await until('the engine thinks', async () => Number(await p.locator(tid('engine-line')).getAttribute('data-depth')) >= 4, 30000);

    // Opened by address, offline: the analysis board and the learn pages. A game against the
    // CPU from the analysis board's position is one on the device too.
    await p.goto(`${H.BASE}/analysis`).catch(() => null);
    await p.waitForSelector(tid('analysis'));
    await until('the engine thinks', async () => Number(await p.locator(tid('engine-line')).getAttribute('data-depth')) >= 4, 30000);
    await p.fill(tid('import-text'), '8/8/4k3/8/8/3MK3/8/7R b - - 0 30');
    await p.click(tid('import-load'));
    await until('the position loaded', async () => (await p.locator(tid('analysis')).getAttribute('data-fen'))?.startsWith('8/8/4k3/8/8/3MK3/8/7R b'));
    await p.selectOption(tid('analysis-level'), '1');
    await p.click(tid('analysis-cpu'));
    await p.waitForSelector(tid('local-game'));
    const fromHere = await p.evaluate(() => window.__makruk.local());
    assert(fromHere.startFen.startsWith('8/8/4k3/8/8/3MK3/8/7R b') && fromHere.level === 1, `from the analysis board's position (${JSON.stringify(fromHere)})`);
    await until('the CPU (Black) moves first', async () => (await state(p))?.moves.length === 1, 20000);
    for (const variant of ['makruk', 'ouk']) {
      await p.goto(`${H.BASE}/learn/${variant}`).catch(() => null);
      await p.waitForSelector(`${tid('learn')}[data-variant="${variant}"]`);
      assert((await p.locator(tid('learn-title')).count()) === 1, `the learn page (${variant})`);
    }
    await shot(p, 'offline-learn-1280-en');
    // A table needs the server: the offline page.
    await p.goto(`${H.BASE}/p/ABCDEF`).catch(() => null);
    await p.waitForSelector(tid('offline-page'));

    await ctx.setOffline(false);
    const errors = p.consoleErrors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|ERR_NAME_NOT_RESOLVED|net::ERR_FAILED/.test(e));
    assert(errors.length === 0, `no other console errors (${errors.join(' | ')})`);
    await ctx.close();
  });

  test('offline: Ouk Chatrang with declared counting, on a phone in Khmer; the server unreachable (not the browser offline) plays on the device too', async () => {
    const p = await newPage(PHONE, 'km-KH');
    p.touch = true;
    const ctx = p.context();
    await p.goto(`${H.BASE}/practice`);
    await p.waitForSelector(tid('cpu-level'));
    await controlled(p);
    // The browser thinks it is online, but the server does not answer.
    await ctx.route('**/api/**', (route) => route.abort('connectionrefused'));
    await p.click(`${tid('variant')} button[data-value="ouk"]`);
    await p.click(`${tid('counting')} button[data-value="declare"]`);
    await p.click(`${tid('cpu-level')} button[data-value="2"]`);
    await p.fill(tid('name'), 'Dara');
    await p.click(tid('create'));
    await p.waitForSelector(tid('local-game'));
    const game = await p.evaluate(() => window.__makruk.local());
    assert(game.variant === 'ouk' && game.counting === 'declare' && game.level === 2, `Ouk, declared counting, level 2 (${JSON.stringify(game)})`);
    await until('my turn', async () => (await p.locator(tid('board')).getAttribute('data-myturn')) === 'true', 20000);
    const s = await state(p);
    await clickMove(p, s.legal.includes('e3e4') ? 'e3e4' : s.legal[0], true);
    await until('the CPU answers', async () => (await state(p))?.moves.length === 2, 20000);
    assert((await text(p, tid('local-note'))).includes('ឧបករណ៍នេះ'), `the note in Khmer (${await text(p, tid('local-note'))})`);
    await shot(p, 'offline-ouk-360-km');
    await p.goto(`${H.BASE}/practice`);
    const item = p.locator(`${tid('local-game-item')}[data-id="${game.id}"]`);
    await until('listed on the practice screen', () => item.isVisible());
    assert(/២/.test(await item.innerText()), `the number of moves in Khmer digits (${await item.innerText()})`);
    await ctx.unroute('**/api/**');
    await ctx.close();
  });
}
