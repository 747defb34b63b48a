// What players still tripped over in the web client (issue 26): the move list as one Tab
// stop, the focus after a screen changes, the analysis board's width on a phone in Thai
// and Khmer, its name for a new table, its Load with an empty box, "What players say" far
// down the home page, and a game page that fetched the invite's QR code it never shows.

// 70 half-moves (move 35) that end nothing: no mate, no repetition, no count (checked
// with the rules core; the engine at depth 3 played them against itself).
const LONG_GAME = (
  'c1c2 b8d7 d3d4 f6f5 c3c4 e6e5 e1d2 e5e4 f3e4 f5e4 f1f2 d6d5 c4d5 c6d5 g1e2 c8c7 e2f4 g8e7 ' +
  'g3g4 f8f7 b1c3 c7d6 d1e1 g6g5 f4e2 d8c7 c3d1 b6b5 e1f1 e8f8 f1g1 h6h5 g4h5 f8g7 e2g3 d7f6 ' +
  'h3h4 g5g4 g3e2 f6d7 f2g3 d7f6 d1f2 a8g8 g3g4 g7h7 g4g5 f6h5 a3a4 b5b4 f2g4 f7f6 g4h6 g8g7 ' +
  'e2f4 h5f4 e3f4 f6g5 h4g5 h7g6 d2e3 c7b6 a4a5 b6c7 g1f2 g7h7 a1g1 c7b8 h1h3 h8c8'
).split(' ');

export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, waitV, myColor, PHONE, DESKTOP } = H;

  const active = (page) =>
    page.evaluate(() => {
      const a = document.activeElement;
      return { tag: a?.tagName ?? null, testid: a?.dataset?.testid ?? null, ply: a?.dataset?.ply ?? null, body: !a || a === document.body };
    });

  /** Tabs from the board's one square that takes Tab until the typed-move box has the focus. */
  async function tabsBoardToMoveBox(page, max = 60) {
    await page.focus(`${tid('board-grid')} .kb-cell[tabindex="0"]`);
    for (let i = 1; i <= max; i++) {
      await page.keyboard.press('Tab');
      if ((await active(page)).testid === 'typed-move') return i;
    }
    return Infinity;
  }

  /** Plays moves by typing them into the box of whoever is to move; every page sees each. */
  async function typeMoves(pages, moves) {
    for (const mv of moves) {
      const s0 = await state(pages[0]);
      let mover = null;
      for (const p of pages) if ((await myColor(p)) === s0.turn) mover = p;
      assert(mover, `someone plays ${s0.turn}`);
      await mover.fill(tid('typed-move'), mv);
      await mover.press(tid('typed-move'), 'Enter');
      for (const p of pages) await waitV(p, s0.v + 1);
      const s1 = await state(pages[0]);
      assert(s1.moves[s0.moves.length]?.startsWith(mv), `played ${mv} (got ${s1.moves[s0.moves.length]})`);
    }
  }

  test('trips-web: the move list is one Tab stop: from the board to the move box in a few Tabs at move 35; arrows, Home and End step in it', async () => {
    const { a, b } = await H.startedTable(DESKTOP, 'en-US', DESKTOP, 'en-US');
    await typeMoves([a, b], LONG_GAME);
    const s = await state(a);
    assert(s.moves.length === 70 && s.result === '*', `70 half-moves, the game goes on (${s.moves.length} ${s.result})`);
    // both players: whoever is to move, and the other
    const counts = [];
    for (const p of [a, b]) {
      const tabs = await tabsBoardToMoveBox(p);
      assert(tabs <= 12, `the board and the move box are a few Tabs apart at move 35 (${tabs})`);
      counts.push(tabs);
    }
    // the list's one stop is the move shown; the keys step through the moves from there
    await a.keyboard.press('Shift+Tab');
    let f = await active(a);
    assert(f.ply === '70', `Shift+Tab from the move box: the latest move (${JSON.stringify(f)})`);
    await a.keyboard.press('ArrowLeft');
    await until('one move back, the focus with it', async () => (await active(a)).ply === '69');
    await until('viewing move 69', async () => (await text(a, tid('viewing'))).includes('69'));
    await a.keyboard.press('ArrowUp');
    await until('ArrowUp steps back too', async () => (await active(a)).ply === '68');
    await a.keyboard.press('ArrowDown');
    await until('ArrowDown steps on', async () => (await active(a)).ply === '69');
    await a.keyboard.press('Home');
    await until('the start position', async () => (await a.locator(tid('board')).getAttribute('data-fen')).startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR'));
    f = await active(a);
    assert(f.ply === '1', `at the start the first move is the list's stop (${JSON.stringify(f)})`);
    await a.keyboard.press('End');
    await until('back to the latest', async () => (await active(a)).ply === '70' && (await text(a, tid('viewing'))) === '');
    const stops = await a.locator(`${tid('moves')} button[tabindex="0"]`).count();
    assert(stops === 1, `one move of the list takes Tab (${stops})`);
    // the analysis board's list too
    const p = await newPage(PHONE, 'th-TH');
    await p.goto(`${H.BASE}/analysis?moves=${LONG_GAME.join('+')}`);
    await until('the long game on the analysis board', async () => (await p.locator(`${tid('moves')} button`).count()) === 70);
    const tabs = await tabsBoardToMoveBox(p);
    assert(tabs <= 8, `on the analysis board too (${tabs})`);
    console.log(`     (board to move box at move 35: ${counts.join(' and ')} Tabs at the table, ${tabs} on the analysis board)`);
    await shot(a, 'trips-movelist-1280-en');
    for (const x of [a, b, p]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
  });

  test('trips-web: the focus goes to the new screen after opening Practise and when a game opens, never the page body', async () => {
    const p = await newPage(DESKTOP, 'en-US');
    await p.goto(`${H.BASE}/`);
    await p.waitForSelector(tid('home'));
    // by keys, as a keyboard or screen reader user opens it
    await p.focus(tid('practise-cpu'));
    await p.keyboard.press('Enter');
    await p.waitForSelector(tid('cpu-level'));
    let f = await until('the focus on the practice screen', async () => {
      const x = await active(p);
      return x.body ? null : x;
    });
    assert(f.tag === 'H1', `the practice screen's heading has it (${JSON.stringify(f)})`);
    // Tab goes on into the screen's form, not back to the top of the page
    await p.keyboard.press('Tab');
    const inForm = await p.evaluate(() => !!document.activeElement?.closest('main'));
    assert(inForm, 'the next Tab stays on the screen');
    await p.fill(tid('name'), 'Learner');
    await p.click(`${tid('cpu-level')} button[data-value="1"]`);
    await p.click(tid('create'));
    await p.waitForSelector(tid('game'));
    await waitV(p, 0);
    f = await until('the focus in the game', async () => {
      const x = await active(p);
      return x.body || x.tag === 'MAIN' ? null : x;
    });
    assert(f.testid === 'game-heading', `the game's heading has it (${JSON.stringify(f)})`);
    // one Tab from there reaches the board
    await p.keyboard.press('Tab');
    assert(await p.evaluate(() => document.activeElement?.classList.contains('kb-cell')), 'the next Tab is the board');

    // a game two people start: the host's Start button goes, the guest's invite goes
    const { a, b } = await H.startedTable(DESKTOP, 'th-TH', PHONE, 'km-KH');
    for (const x of [a, b]) {
      const g = await until('the focus in the game', async () => {
        const y = await active(x);
        return y.body || y.tag === 'MAIN' ? null : y;
      });
      assert(g.testid === 'game-heading', `the game's heading has it (${JSON.stringify(g)})`);
    }
    for (const x of [p, a, b]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
  });

  test('trips-web: the analysis board at 360 px in Thai and Khmer stays within the width while the engine lines update', async () => {
    // the start, and a middle game (longer lines, captures)
    for (const q of ['', `?moves=${LONG_GAME.slice(0, 30).join('+')}`]) {
      for (const locale of ['th-TH', 'km-KH']) {
        const p = await newPage(PHONE, locale);
        await p.goto(`${H.BASE}/analysis${q}`);
        await p.waitForSelector(tid('engine-lines'));
        // every update up to depth 10: never wider than the phone
        let widest = 0;
        await until(`${locale}: the engine at depth 10`, async () => {
          const [w, depth, lines] = await p.evaluate(() => [
            document.documentElement.scrollWidth,
            Number(document.querySelector('[data-testid="engine-line"]')?.dataset.depth ?? 0),
            document.querySelectorAll('[data-testid="engine-lines"] .engine-pv').length,
          ]);
          widest = Math.max(widest, w);
          return depth >= 10 && lines === 3;
        }, 30000);
        assert(widest <= 360, `${locale}${q ? ' (middle game)' : ''}: the page is never wider than 360 px (${widest})`);
        assert((await p.evaluate(() => window.innerWidth)) === 360, `${locale}: not zoomed out`);
        await H.checkNoOverflow(p, `analysis 360 ${locale}`);
        if (!q) await shot(p, `trips-analysis-360-${locale}`);
        assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
        await p.context().close();
      }
    }
  });

  test('trips-web: Play or Invite from the analysis board asks a fresh browser for a name; the friend reads it, never "White"', async () => {
    const p = await newPage(PHONE, 'th-TH');
    await p.goto(`${H.BASE}/analysis`);
    await p.waitForSelector(tid('analysis-invite'));
    await until('the position is read', async () => (await p.inputValue(tid('analysis-fen'))) !== '');
    assert((await p.inputValue(tid('name'))) === '', 'a fresh browser: the name field is empty');
    await p.click(tid('analysis-invite'));
    await until('asked for a name', async () => (await text(p, tid('analysis-table-error'))) === 'กรุณาพิมพ์ชื่อ');
    assert((await active(p)).testid === 'name', 'the focus on the name field');
    assert(new URL(p.url()).pathname === '/analysis', 'no table made');
    await p.fill(tid('name'), 'น้อย');
    await p.click(tid('analysis-invite'));
    await p.waitForSelector(tid('invite-url'));
    const code = new URL(p.url()).pathname.split('/')[2];
    const party = (await H.apiJson('GET', `/api/parties/${code}`)).json.party;
    assert(party.players[0].name === 'น้อย', `the table has the name given (${party.players[0].name})`);
    // the friend joins by the link and reads whose turn it is by that name
    const link = await p.inputValue(tid('invite-url'));
    const b = await newPage(PHONE, 'th-TH');
    await b.goto(link);
    await b.fill(tid('name'), 'ดารา');
    await b.click(tid('join'));
    await p.waitForSelector(tid('start'));
    await p.click(tid('start'));
    await b.waitForSelector(tid('game'));
    await until('the friend reads the name', async () => (await text(b, tid('status-main'))) === 'ตาของ น้อย');
    assert(!/White|ขาว/.test(await text(b, tid('bar-top'))), `no colour for a name (${await text(b, tid('bar-top'))})`);
    await shot(b, 'trips-analysis-invite-friend-360-th');

    // a browser that kept a name from before: the field has it, and Play against the CPU uses it
    const c = await newPage(PHONE, 'km-KH');
    await c.goto(`${H.BASE}/`);
    await c.evaluate(() => localStorage.setItem('makruk.name', 'សុភា'));
    await c.goto(`${H.BASE}/analysis`);
    await c.waitForSelector(tid('analysis-cpu'));
    assert((await c.inputValue(tid('name'))) === 'សុភា', 'the saved name is filled in');
    await c.selectOption(tid('analysis-level'), '1');
    await c.click(tid('analysis-cpu'));
    await until('at the CPU table', async () => /^\/p\/[A-Z0-9]{6}$/.test(new URL(c.url()).pathname));
    const cpuCode = new URL(c.url()).pathname.split('/')[2];
    const cpuParty = (await H.apiJson('GET', `/api/parties/${cpuCode}`)).json.party;
    assert(cpuParty.players.some((x) => x.name === 'សុភា'), `the CPU table has the saved name (${JSON.stringify(cpuParty.players.map((x) => x.name))})`);
    for (const x of [p, b, c]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
  });

  test('trips-web: Load with an empty box on the analysis board says so, in Thai, English and Khmer', async () => {
    const said = {
      'en-US': 'The box is empty: paste a PGN, a list of moves or a FEN into it, then press Load.',
      'th-TH': 'ช่องนี้ยังว่างอยู่ วาง PGN รายการตาเดิน หรือ FEN ลงในช่องก่อน แล้วกดโหลด',
      'km-KH': 'ប្រអប់នៅទទេ៖ សូមបិទភ្ជាប់ PGN បញ្ជីការដើរ ឬ FEN ចូលជាមុនសិន រួចចុច ផ្ទុក។',
    };
    for (const [locale, words] of Object.entries(said)) {
      const p = await newPage(PHONE, locale);
      await p.goto(`${H.BASE}/analysis`);
      await until('ready', async () => !!(await p.locator(tid('analysis')).getAttribute('data-fen')));
      const before = await p.locator(tid('analysis')).getAttribute('data-fen');
      await p.click(tid('import-load'));
      await until(`${locale}: told the box is empty`, async () => (await text(p, tid('import-error'))) === words);
      assert((await active(p)).testid === 'import-text', 'the focus on the box');
      // only blanks: the same
      await p.fill(tid('import-text'), '  \n ');
      await p.evaluate(() => (document.querySelector('[data-testid="import-error"]').textContent = ''));
      await p.click(tid('import-load'));
      await until(`${locale}: blanks are empty too`, async () => (await text(p, tid('import-error'))) === words);
      assert((await p.locator(tid('analysis')).getAttribute('data-fen')) === before, 'the board did not change');
      if (locale === 'km-KH') await shot(p, 'trips-analysis-empty-load-360-km');
      assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
      await p.context().close();
    }
  });

  test('trips-web: on a phone "What players say" starts within the first two screens of the home page', async () => {
    // a recommendation to show
    const { r, j, a, b } = await H.playedTable();
    await a.click(tid('resign'));
    await a.click(tid('resign-dialog-yes'));
    await until('over', async () => (await state(b))?.reason === 'resignation');
    const sent = await H.apiJson('POST', '/api/recommendations', { code: r.code, token: j.token, stars: 5, text: 'Easy to start a game', lang: 'en' });
    assert(sent.status === 201, `recommended (${sent.status})`);
    for (const locale of ['en-US', 'th-TH', 'km-KH']) {
      const p = await newPage(PHONE, locale);
      await p.goto(`${H.BASE}/`);
      await p.waitForSelector(`${tid('recommendations')}:not([hidden])`);
      const [top, screen] = await p.evaluate(() => [
        document.querySelector('[data-testid="recommendations"]').getBoundingClientRect().top + window.scrollY,
        window.innerHeight,
      ]);
      assert(top <= 2 * screen, `${locale}: "What players say" starts ${Math.round(top)} px down (at most ${2 * screen})`);
      // still after the ways to play
      const buttons = await p.evaluate(() => document.querySelector('.big-buttons').getBoundingClientRect().bottom + window.scrollY);
      assert(top > buttons, `${locale}: after the main buttons (${Math.round(top)} > ${Math.round(buttons)})`);
      await H.checkNoOverflow(p, `home 360 ${locale}`);
      if (locale === 'th-TH') await shot(p, 'trips-home-recommendations-360-th');
      await p.context().close();
    }
  });

  test('trips-web: a game page opened directly, by a player or a watcher, does not fetch the invite QR code it never shows', async () => {
    const qrOf = (page) => {
      const seen = [];
      page.on('request', (req) => {
        if (/\/qr\.svg/.test(req.url())) seen.push(req.url());
      });
      return seen;
    };
    // the check below can see one: the invite of a table not yet started fetches it
    const w = await newPage(PHONE, 'en-US');
    const waiting = await H.apiCreate({ name: 'Host' });
    await H.adoptSeat(w, waiting.code, waiting.token, 0, 'Host');
    const wSeen = qrOf(w);
    await w.goto(`${H.BASE}/p/${waiting.code}`);
    await w.waitForSelector(tid('qr'));
    await until('the invite fetches its QR code', async () => wSeen.length > 0);

    const { r, a } = await H.startedTable();
    // a player opens the game's page again
    const aSeen = qrOf(a);
    await a.goto(`${H.BASE}/p/${r.code}`);
    await a.waitForSelector(tid('game'));
    await waitV(a, 0);
    await a.waitForLoadState('networkidle');
    assert(aSeen.length === 0, `the player's game page fetched no QR code (${aSeen.join(' ')})`);
    // someone with the link watches
    const c = await newPage(PHONE, 'en-US');
    const cSeen = qrOf(c);
    await c.goto(`${H.BASE}/p/${r.code}`);
    await c.waitForSelector(tid('table-full'));
    await c.click(tid('watch'));
    await c.waitForSelector(tid('game'));
    await waitV(c, 0);
    await c.waitForLoadState('networkidle');
    assert(cSeen.length === 0, `the watcher's game page fetched no QR code (${cSeen.join(' ')})`);
    for (const x of [w, a, c]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
  });
}
