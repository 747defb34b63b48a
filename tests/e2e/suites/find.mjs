// Find an opponent online: two browsers press one button each and play; one
// waiting while practising against the CPU is told when an opponent comes.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE, DESKTOP } = H;

  async function openFind(page, name) {
    await page.goto(`${H.BASE}/`);
    await page.click(tid('find-online'));
    await page.waitForSelector(tid('find-form'));
    await page.fill(tid('name'), name);
  }

  // `a` looks for an opponent (with the choice `wish`, a selector) and practises against the
  // CPU meanwhile; `b` looks for the same and comes to the paired table, where it waits for
  // `a`, who is told.
  async function foundWhilePractising(a, nameA, b, nameB, wish) {
    await openFind(a, nameA);
    await a.click(wish);
    await a.click(tid('find'));
    await a.waitForSelector(tid('find-waiting'));
    await a.click(tid('find-practise'));
    await a.waitForSelector(tid('create'));
    await a.click(tid('create'));
    await a.waitForSelector(tid('game'));
    await openFind(b, nameB);
    await b.click(wish);
    await b.click(tid('find'));
    await b.waitForSelector(tid('pairing-arriving'));
    await a.waitForSelector(tid('opponent-found'));
  }

  test('find an opponent: two browsers press Find and land at one started table; counts; cancel leaves the queue', async () => {
    const a = await newPage(PHONE, 'en-US');
    const b = await newPage(DESKTOP, 'th-TH');
    await openFind(a, 'Somchai');
    await shot(a, 'find-360-en');
    await a.click(`${tid('find-variant')} [data-value="ouk"]`);
    await a.click(tid('find'));
    await a.waitForSelector(tid('find-waiting'));
    // The one waiting is not counted among those it waits for.
    await until('the counts say nobody else waits', async () => /Besides you: 0 waiting/.test(await text(a, tid('lobby-counts-waiting'))));
    assert((await (await fetch(`${H.BASE}/api/lobby`)).json()).waiting === 1, 'the server counts the one waiting');
    await shot(a, 'find-360-en-waiting');
    // Cancel, and the queue is empty again.
    await a.click(tid('find-cancel'));
    await a.waitForSelector(`${tid('find-form')}:not([hidden])`);
    await until('nobody waits', async () => (await (await fetch(`${H.BASE}/api/lobby`)).json()).waiting === 0);
    // Again, then the second browser (Thai) asks for either variant: they are paired.
    await a.click(tid('find'));
    await a.waitForSelector(tid('find-waiting'));
    await openFind(b, 'Dara');
    await b.click(`${tid('find-variant')} [data-value=""]`);
    await shot(b, 'find-1280-th');
    await b.click(tid('find'));
    for (const p of [a, b]) await p.waitForSelector(tid('game'));
    await until('both see game 1 at version 0', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);
    const s = await state(a);
    assert(s.variant === 'ouk', `the table is Ouk Chatrang (${s.variant})`);
    assert((await a.evaluate(() => window.__makruk?.party?.()?.status)) === 'playing', 'started without a Start button');
    // White moves; the other sees it.
    const move = s.legal[0];
    await H.playMove([a, b], move.slice(0, 4), 'click');
    await shot(b, 'find-1280-th-paired-game');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('find an opponent: while practising against the CPU the player is told when an opponent is found', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'en-US');
    // Someone else comes for the same; Bo waits at the table for Noi to come: the game
    // begins when both are there.
    await foundWhilePractising(a, 'Noi', b, 'Bo', `${tid('find-counting')} [data-value="declare"]`);
    assert(/Waiting for Noi/.test(await text(b, tid('pairing-waiting'))), 'the one who came waits for the other, by name');
    assert(/Opponent found: Bo/.test(await text(a, tid('opponent-found'))), 'the notice names the opponent');
    await shot(a, 'find-1280-en-found-while-practising');
    await shot(b, 'find-360-en-arriving');
    await a.click(tid('found-go'));
    await b.waitForSelector(tid('game'));
    await until('at the paired table', async () => (await a.evaluate(() => window.__makruk?.party?.()?.rules?.counting)) === 'declare');
    assert((await a.locator(tid('opponent-found')).count()) === 0, 'the notice is gone');
  });

  test('find an opponent: a paired player who makes no first move loses the pairing; the other goes back to the front of the queue', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'th-TH');
    await openFind(a, 'Silent');
    await a.click(`${tid('find-variant')} [data-value="makruk"]`);
    await a.click(tid('find'));
    await a.waitForSelector(tid('find-waiting'));
    await openFind(b, 'Dara');
    await b.click(`${tid('find-variant')} [data-value="makruk"]`);
    await b.click(tid('find'));
    for (const p of [a, b]) await p.waitForSelector(tid('game'));
    await until('both see game 1 at version 0', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);
    // Silent waited longer: White, to move. Its 30 s pass (the server's clock moves on).
    const r = await H.apiJson('POST', '/api/test/clock', { advanceMs: 31000 });
    assert(r.status === 200, `the test clock moves (${r.status})`);
    // Dara is told in Thai, and waits again at the front of the queue; Silent is told why.
    await b.waitForSelector(`${tid('find-front')}:not([hidden])`);
    assert(/Silent ไม่ได้เดิน/.test(await text(b, tid('find-front'))), `told in Thai (${await text(b, tid('find-front'))})`);
    await b.waitForSelector(tid('find-waiting'));
    await until('Dara waits again', async () => (await (await fetch(`${H.BASE}/api/lobby`)).json()).waiting === 1);
    await a.waitForSelector(tid('pairing-ended'));
    assert(/You made no move in time/.test(await text(a, tid('pairing-ended-text'))), `Silent is told (${await text(a, tid('pairing-ended-text'))})`);
    await shot(b, 'find-360-th-front');
    await b.click(tid('find-cancel'));
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('find an opponent: the one practising taps "Not now"; the other is told at once, nothing was played, and finds another', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'th-TH');
    await foundWhilePractising(a, 'Busy B', b, 'Dara', `${tid('find-variant')} [data-value="ouk"]`);
    await a.click(tid('found-later'));
    // Dara is told in Thai who cannot play, that nothing was played, and may look again.
    await b.waitForSelector(tid('pairing-ended'));
    assert(/Busy B ยังเล่นตอนนี้ไม่ได้/.test(await text(b, tid('pairing-ended-text'))), `told in Thai (${await text(b, tid('pairing-ended-text'))})`);
    assert((await b.locator(tid('game')).count()) === 0 && (await b.locator(tid('resign')).count()) === 0, 'no game to resign from');
    assert((await a.locator(tid('opponent-found')).count()) === 0, 'the notice is gone');
    assert((await a.evaluate(() => window.__makruk?.party?.()?.cpu)) > 0, 'Busy B is still at the practice game');
    await shot(b, 'find-360-th-declined');
    await b.click(tid('find-another'));
    await b.waitForSelector(tid('find-waiting'));
    await until('Dara waits again', async () => (await (await fetch(`${H.BASE}/api/lobby`)).json()).waiting === 1);
    await b.click(tid('find-cancel'));
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
