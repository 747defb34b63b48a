// The 45-day end: a turn-based table without a move for 45 days ends with no winner or
// loser, read-only, and My games says so. It moves the server's clock 45 days ahead for
// good, which ends every turn-based table: it runs last (`clock`, see run.mjs).
export const clock = 'last';

const DAY = 24 * 3600 * 1000;

export default function (H) {
  const { test, assert, until, sleep, newPage, shot, tid, text, state, waitV, clickMove, playMove, apiCreate,
    apiJson, apiJoin, adoptSeat, checkNoOverflow, checkTapTargets, myGame, PHONE, DESKTOP } = H;

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
    await a.goto(`${H.BASE}/p/${r.code}`);
    await a.click(tid('start'));
    await a.waitForSelector(tid('game'));
    await b.goto(`${H.BASE}/p/${r.code}`);
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
    await c.goto(`${H.BASE}/p/${r.code}`);
    await c.waitForSelector(tid('join-prompt'));
    assert((await c.locator(tid('table-expired')).count()) === 1 && (await c.locator(tid('join')).count()) === 0, 'no joining an ended table');
    await shot(c, 'expired-360-en-join-prompt');
    for (const p of [a, b, c]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await a.context().close();
    await b.context().close();
    await c.context().close();
  });
}
