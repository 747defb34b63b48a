// A table from the home page to mate: the home page and its languages, friends at one table
// (by link and by typed code), both colours mating, declared counting, practice against the
// CPU across a server restart, the game screen's sizes, house rules, Ouk Chatrang's
// repetition, a wrong code.
export default function (H) {
  const { test, assert, until, sleep, newPage, shot, tid, kmNum, text, state, seatOf, myColor, waitV, squareXY,
    clickMove, playMove, apiCreate, adoptSeat, boardBox, checkNoOverflow, checkTapTargets, startServer, stopServer,
    PHONE, DESKTOP, WHITE_MATE, BLACK_MATE } = H;

  test('home: three buttons, rules, language picker (en → ไทย → ខ្មែរ, kept on reload)', async () => {
    const page = await newPage(PHONE, 'en-US');
    await page.goto(`${H.BASE}/`);
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
    await th.goto(`${H.BASE}/`);
    await until('Thai from navigator.language', async () => (await text(th, 'h1')) === 'หมากรุกไทย');
    await shot(th, 'home-1280-th');
    await th.goto(`${H.BASE}/new`);
    await th.waitForSelector(tid('create'));
    await shot(th, 'newtable-1280-th');
    await th.context().close();
    const km = await newPage(PHONE, 'km-KH');
    await km.goto(`${H.BASE}/new`);
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
    await a.goto(`${H.BASE}/`);
    await a.click(tid('play-friends'));
    await a.waitForSelector(tid('create'));
    await a.fill(tid('name'), 'Somchai <b>&amp;</b>');
    await a.click(tid('create'));
    await a.waitForSelector(tid('invite-code'));
    const code = await text(a, tid('invite-code'));
    assert(/^[A-Z0-9]{6}$/.test(code), `a 6-character code (${code})`);
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

    await b.goto(`${H.BASE}/p/${code}`);
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
    await c.goto(`${H.BASE}/p/${code}`);
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
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('black mates too (drag on the phone, click on the desktop)', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'en-US');
    b.touch = true;
    const r = await apiCreate({ name: 'Host', swapColors: false });
    await adoptSeat(a, r.code, r.token, 0, 'Host');
    await a.goto(`${H.BASE}/p/${r.code}`);
    await a.waitForSelector(tid('invite'));
    await b.goto(`${H.BASE}/join`);
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
    await a.goto(`${H.BASE}/p/${r.code}`);
    await a.waitForSelector(tid('invite'));
    // join with the typed code, from the home page
    await b.goto(`${H.BASE}/`);
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
    await p.goto(`${H.BASE}/`);
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

    if (H.server) {
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
    await a.goto(`${H.BASE}/p/${r.code}`);
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
    await p.goto(`${H.BASE}/p/${r.code}`);
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
      await p.goto(`${H.BASE}/p/${r.code}`);
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
    await a.goto(`${H.BASE}/p/${r.code}`);
    await a.waitForSelector(tid('invite'));
    await b.goto(`${H.BASE}/p/${r.code}`);
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
    await p.goto(`${H.BASE}/join`);
    await p.fill(tid('code'), 'ZZZZZZ');
    await p.fill(tid('name'), 'X');
    await p.click(tid('join'));
    await until('not found message', async () => /No table/.test(await text(p, tid('error'))));
    await p.goto(`${H.BASE}/p/ZZZZZZ`);
    await p.waitForSelector(tid('missing'));
    await p.context().close();
  });
}
