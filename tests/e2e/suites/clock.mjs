// The clock house rule: chosen when the table is made, shown on both players' bars,
// running for the side to move, kept by the server across a reload, and a game lost on time.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE, DESKTOP } = H;

  test('clock: a table made with 5+3; both bars show it, the mover\'s runs; the side that runs out loses on time, in English and Thai', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    await a.goto(`${H.BASE}/`);
    await a.click(tid('play-friends'));
    await a.waitForSelector(tid('create'));
    await a.fill(tid('name'), 'Somchai');
    await a.click(`${tid('clock')} [data-value="5+3"]`);
    await a.click(tid('create'));
    await a.waitForSelector(tid('invite-code'));
    const code = await text(a, tid('invite-code'));
    assert(/Clock: 5\+3/.test(await text(a, tid('invite-summary'))), `the invite names the clock (${await text(a, tid('invite-summary'))})`);
    const j = await H.apiJoin(code, 'Dara');
    const b = await newPage(PHONE, 'th-TH');
    await H.adoptSeat(b, code, j.token, 1, 'Dara');
    await b.goto(`${H.BASE}/p/${code}`);
    await a.waitForSelector(tid('start'));
    await a.click(tid('start'));
    await until('the game on both', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);

    // Both bars have a clock at 5:00; White's runs.
    for (const p of [a, b]) {
      for (const bar of ['bar-top-clock', 'bar-bottom-clock']) assert(await p.locator(tid(bar)).isVisible(), `${bar} is shown`);
    }
    await until('White\'s clock runs on Somchai\'s page', async () => {
      const ms = Number(await a.locator(tid('bar-bottom-clock')).getAttribute('data-ms'));
      return ms < 300000 && ms > 280000;
    });
    assert((await text(b, tid('bar-bottom-clock'))) === '5:00', `Black's clock stands at 5:00 (${await text(b, tid('bar-bottom-clock'))})`);
    await H.playMove([a, b], 'e3e4');
    await until('now Black\'s runs, and White got 3 s', async () => {
      const s = await state(b);
      return s?.clock?.running === 'b' && s.clock.w > 300000 - 60000 && s.clock.w <= 303000;
    });
    assert((await b.locator(`${tid('bar-bottom-clock')}.running`).count()) === 1, 'Dara\'s own clock is the running one');
    await shot(b, 'clock-running-360-th');

    // A reload keeps the clocks (the server keeps them).
    await b.reload();
    await until('the clocks again after a reload', async () => (await state(b))?.clock?.running === 'b');

    // Dara thinks for six minutes (the server's clock moves on): Black loses on time.
    const r = await H.apiJson('POST', '/api/test/clock', { advanceMs: 360000 });
    assert(r.status === 200, `the test clock moves (${r.status})`);
    await until('lost on time on both pages', async () => (await state(a))?.reason === 'time' && (await state(b))?.reason === 'time');
    assert((await state(a)).result === '1-0', 'White wins');
    await until('the status says so in English', async () => /on time/.test(await text(a, tid('status-sub'))));
    await until('and in Thai', async () => /หมดเวลา/.test(await text(b, tid('status-sub'))));
    assert((await text(b, tid('bar-bottom-clock'))) === '0:00.0', `Black's clock shows nothing left (${await text(b, tid('bar-bottom-clock'))})`);
    assert((await b.locator(`${tid('bar-bottom-clock')}.running`).count()) === 0, 'no clock runs once the game is over');
    await shot(a, 'clock-lost-on-time-1280-en');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
