// Accessibility: axe-core finds no violation on any screen, at phone and desktop sizes, in
// Thai, English and Khmer. One page per size goes through every screen; the language is
// switched in place with the picker in the top bar.
//
// axe-core is put into the page as a script element; the server's Content-Security-Policy
// (script-src 'self') refuses inline scripts, so these pages, and only these, are opened with
// Playwright's bypassCSP. The CSP test at the end of the run still covers every other page.
import path from 'node:path';

const LANGS = ['en', 'th', 'km'];

export default function (H) {
  const { test, testFull, assert, until, sleep, newPage, tid, state, waitV, clickMove, apiCreate, apiJoin, adoptSeat, PHONE, DESKTOP } = H;
  const AXE = path.join(H.ROOT, 'web', 'node_modules', 'axe-core', 'axe.min.js');

  /** axe-core's violations on the page as it is now (every rule that is not experimental). */
  async function axe(page) {
    if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ path: AXE });
    return page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`),
      }));
    });
  }

  function recorder(size) {
    const problems = [];
    let runs = 0;
    const check = async (page, screen, lang) => {
      runs++;
      for (const v of await axe(page)) {
        problems.push(`${screen} [${size} ${lang}] ${v.id} (${v.impact}): ${v.help}\n        ${v.nodes.slice(0, 4).join('\n        ')}`);
      }
    };
    /** Runs axe in each language, switching with the picker; `after` settles the screen first. */
    const allLangs = async (page, screen, after) => {
      for (const l of LANGS) {
        await page.click(`[data-lang="${l}"]`);
        await until(`${screen}: ${l}`, async () => (await page.evaluate(() => document.documentElement.lang)) === l);
        if (after) await after(l);
        await sleep(60);
        await check(page, screen, l);
      }
    };
    return { problems, check, allLangs, runs: () => runs };
  }

  /** A turn-based table of two, opened on `page` by the first player, who has made the first move. */
  async function turnBasedTable(page, opts) {
    const t = await apiCreate({ name: 'Malee', mode: 'turn', swapColors: false });
    await apiJoin(t.code, 'Niran');
    await adoptSeat(page, t.code, t.token, t.seat, 'Malee');
    await page.goto(`${H.BASE}/p/${t.code}`);
    await page.click(tid('start'));
    await page.waitForSelector(tid('game'));
    await waitV(page, 0);
    await clickMove(page, 'e3e4', !!opts.hasTouch);
    await waitV(page, 1);
    return t;
  }

  async function screens(size, opts) {
    const page = await newPage({ ...opts, bypassCSP: true }, 'en-US');
    const rec = recorder(size);
    const { allLangs } = rec;
    const base = H.BASE;

    await page.goto(`${base}/`);
    await page.waitForSelector(tid('home'));
    await allLangs(page, 'home');

    await page.goto(`${base}/new`);
    await page.waitForSelector(tid('create'));
    await allLangs(page, 'new table');

    await page.goto(`${base}/practice`);
    await page.waitForSelector(tid('cpu-level'));
    await allLangs(page, 'practice');

    await page.goto(`${base}/join`);
    await page.waitForSelector(tid('code'));
    await allLangs(page, 'join with a code', async () => {
      await page.fill(tid('code'), '');
      await page.click(tid('join')); // an empty form: the error shows
      await page.waitForSelector(`${tid('error')}:not(:empty)`);
    });

    // learn the game: both pages, with the questions open and a lesson under way
    for (const v of ['makruk', 'ouk']) {
      await page.goto(`${base}/learn/${v}`);
      await page.waitForSelector(tid('lesson-board'));
      await allLangs(page, `learn ${v}`, async (l) => {
        await page.waitForSelector(`${tid('learn')}[data-lang="${l}"]`);
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
        await page.locator(`${tid('lesson-goal')}[data-visited="false"]`).first().click();
      });
    }

    // the feedback board: the form with its error showing, and messages of every status (one
    // answered) put in the page's lists here, so the board's look is checked even when empty;
    // then the maintainers' page, a wrong key refused, and signed in (with recommendations,
    // one hidden)
    const now = Date.now();
    const sample = ['new', 'planned', 'done', 'wont'].map((status, i) => ({
      id: 900 + i, kind: ['feedback', 'bug', 'setting', 'bug'][i], text: `Message ${i} <b>as text</b>`, name: i % 2 ? 'Noi' : null,
      table: i === 1 ? 'K7QX2M' : null, lang: 'en', status, reply: i === 2 ? 'Done in the new version.' : null,
      createdAt: now - i * 3600e3, repliedAt: i === 2 ? now : null, hidden: i === 3,
    }));
    const recs = [5, 2].map((stars, i) => ({
      id: 800 + i, stars, text: i ? '' : 'ดีมาก <b>as text</b>', name: 'Noi', lang: i ? 'en' : 'th', variant: 'makruk',
      createdAt: now - i * 3600e3, code: 'K7QX2M', hidden: i === 1,
    }));
    await page.route('**/api/feedback', (rt) =>
      rt.request().method() === 'GET'
        ? rt.fulfill({ contentType: 'application/json', body: JSON.stringify({ items: sample.filter((i) => !i.hidden) }) })
        : rt.continue(),
    );
    await page.route('**/api/admin/feedback', (rt) =>
      rt.request().headers().authorization === `Bearer ${H.ADMIN_SECRET ?? 'e2e-admin-secret'}`
        ? rt.fulfill({ contentType: 'application/json', body: JSON.stringify({ items: sample }) })
        : rt.continue(),
    );
    await page.route('**/api/admin/recommendations', (rt) =>
      rt.request().headers().authorization === `Bearer ${H.ADMIN_SECRET ?? 'e2e-admin-secret'}`
        ? rt.fulfill({ contentType: 'application/json', body: JSON.stringify({ items: recs }) })
        : rt.continue(),
    );
    await page.goto(`${base}/feedback?table=K7QX2M&kind=bug`);
    await page.waitForSelector(tid('fb-item'));
    await allLangs(page, 'feedback', async () => {
      await page.fill(tid('fb-text-input'), '');
      await page.click(tid('fb-send')); // an empty message: the error shows
      await page.waitForSelector(`${tid('fb-error')}:not(:empty)`);
    });
    await page.goto(`${base}/admin`);
    await page.waitForSelector(tid('admin-login'));
    await page.fill(tid('admin-secret'), 'not-the-key');
    await page.click(tid('admin-sign-in'));
    await page.waitForSelector(`${tid('admin-error')}:not(:empty)`);
    await allLangs(page, 'admin, wrong key');
    await page.fill(tid('admin-secret'), H.ADMIN_SECRET ?? 'e2e-admin-secret');
    await page.click(tid('admin-sign-in'));
    await page.waitForSelector(tid('admin-rec-800'));
    await allLangs(page, 'admin, signed in');
    await page.unroute('**/api/feedback');
    await page.unroute('**/api/admin/feedback');
    await page.unroute('**/api/admin/recommendations');

    const r = await apiCreate({ name: 'Somchai', swapColors: false });
    await page.goto(`${base}/p/${r.code}`);
    await page.waitForSelector(tid('join-prompt'));
    await allLangs(page, 'join prompt');

    await page.goto(`${base}/p/ZZZZZZ`);
    await page.waitForSelector(tid('missing'));
    await allLangs(page, 'no such table');

    // the invite: waiting for a player, then ready to start
    await adoptSeat(page, r.code, r.token, r.seat, 'Somchai');
    await page.goto(`${base}/p/${r.code}`);
    await page.waitForSelector(tid('invite'));
    await allLangs(page, 'invite, waiting');
    await apiJoin(r.code, 'Dara');
    await page.waitForSelector(tid('start'));
    await allLangs(page, 'invite, ready');

    // the game: at the start (no moves yet), after a move, the resign question, the end
    await page.click(tid('start'));
    await page.waitForSelector(tid('game'));
    await waitV(page, 0);
    await allLangs(page, 'game, start');
    await clickMove(page, 'e3e4', !!opts.hasTouch);
    await waitV(page, 1);
    await allLangs(page, 'game, live');
    for (const l of LANGS) {
      await page.click(`[data-lang="${l}"]`);
      await page.click(tid('resign'));
      await page.waitForSelector(tid('resign-dialog'));
      await rec.check(page, 'resign question', l);
      await page.click(tid('resign-dialog-no'));
      await until('dialog closed', async () => (await page.locator(tid('resign-dialog')).count()) === 0);
    }
    await page.click(tid('resign'));
    await page.click(tid('resign-dialog-yes'));
    await until('resigned', async () => (await state(page))?.reason === 'resignation');
    await page.waitForSelector(tid('rematch'));
    await allLangs(page, 'game, ended');

    // the game's own page, and a link to no game
    const gameId = (await state(page)).gameId;
    await page.goto(`${base}/g/${gameId}`);
    await page.waitForSelector(`${tid('game-page')} ${tid('board')}`);
    await allLangs(page, 'game page');
    await page.goto(`${base}/g/000000000000`);
    await page.waitForSelector(tid('game-missing'));
    await allLangs(page, 'no such game');
    await page.goto(`${base}/analysis?variant=ouk`);
    await page.waitForSelector(`${tid('analysis')}[data-fen]`);
    await allLangs(page, 'analysis board');
    await page.click(tid('analysis-setup'));
    await page.waitForSelector(tid('setup'));
    await allLangs(page, 'setting up a position');

    // a turn-based table after the first move (its "tell me when it's my turn" prompt needs
    // the whole browser: the test after this one)
    const t = await turnBasedTable(page, opts);
    await allLangs(page, 'game, turn-based');

    // My games on the home page, with the tables above
    await page.goto(`${base}/`);
    await page.waitForSelector(`${tid('my-game')}[data-code="${t.code}"]`);
    await allLangs(page, 'home with my games');

    // tournaments: making one, the host's page before and after the start, the projector
    await page.goto(`${base}/tournament/new`);
    await page.waitForSelector(tid('tournament-title'));
    await allLangs(page, 'new tournament');
    const tour = (await H.apiJson('POST', '/api/tournaments', { format: 'swiss', rounds: 3 })).json;
    for (const name of ['Anan', 'Boon', 'Chai']) await H.apiJson('POST', `/api/tournaments/${tour.code}/join`, { name });
    await page.evaluate(([c, h]) => localStorage.setItem(`makruk.tournament.${c}`, JSON.stringify({ host: h })), [tour.code, tour.hostToken]);
    await page.goto(`${base}/t/${tour.code}`);
    await page.waitForSelector(tid('host-start'));
    await allLangs(page, 'tournament, open');
    await page.click(tid('host-start'));
    await page.waitForSelector(tid('standings'));
    await allLangs(page, 'tournament, running');
    await page.goto(`${base}/t/${tour.code}/projector`);
    await page.waitForSelector(tid('pairings'));
    await allLangs(page, 'tournament, projector');

    // (the look-up of the table that does not exist answers 404, and the wrong maintainers'
    // key 401, which the browser logs)
    const errors = page.consoleErrors.filter((e) => !/status of 40[14]/.test(e));
    assert(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    await page.context().close();
    return rec;
  }

  // One test per size, so that runs side by side share the work.
  const SIZES = [
    ['360x740', PHONE, 'phone'],
    ['1280x800', DESKTOP, 'desktop'],
  ];
  for (const [size, opts, name] of SIZES) {
    test(`axe: no accessibility violations on any screen, ${name}, in Thai, English and Khmer`, async () => {
      const rec = await screens(size, opts);
      console.log(`     (axe-core ran ${rec.runs()} times: ${rec.problems.length} violations)`);
      for (const p of rec.problems) console.log(`     ${p}`);
      assert(rec.problems.length === 0, `axe-core violations:\n      ${rec.problems.join('\n      ')}`);
    });
  }
  // (after both: each of the two runs side by side takes one of each)
  for (const [size, opts, name] of SIZES) {
    testFull(`axe: the turn-based prompt to be told of one's turn, ${name}, in Thai, English and Khmer`, async () => {
      const page = await newPage({ ...opts, bypassCSP: true }, 'en-US');
      const rec = recorder(size);
      await turnBasedTable(page, opts);
      await page.waitForSelector(tid('notify-prompt'));
      await rec.allLangs(page, 'game, turn-based, the prompt');
      for (const p of rec.problems) console.log(`     ${p}`);
      assert(rec.problems.length === 0, `axe-core violations:\n      ${rec.problems.join('\n      ')}`);
      assert(page.consoleErrors.length === 0, `no console errors (${page.consoleErrors.join(' | ')})`);
    });
  }
}
