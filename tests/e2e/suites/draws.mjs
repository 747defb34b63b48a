// Draw offers at the table: offered, declined, offered again and accepted.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, apiCreate, apiJoin, adoptSeat, PHONE, DESKTOP } = H;

  test('draw offer: one player offers, the other sees it and declines, then accepts a second offer', async () => {
    const r = await apiCreate({ name: 'Somchai' });
    const j = await apiJoin(r.code, 'Dara');
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'th-TH');
    await adoptSeat(a, r.code, r.token, 0, 'Somchai');
    await adoptSeat(b, r.code, j.token, 1, 'Dara');
    for (const p of [a, b]) await p.goto(`${H.BASE}/p/${r.code}`);
    await a.click(tid('start'));
    await until('the game on both', async () => (await state(a))?.v === 0 && (await state(b))?.v === 0);

    await a.click(tid('offer-draw'));
    await b.waitForSelector(tid('draw-accept'));
    assert(/Somchai/.test(await text(b, tid('rematch-note'))), 'the offer is shown, with the name');
    assert(/waiting for Dara/.test(await text(a, tid('rematch-note'))), 'the one who offered sees it waits');
    assert((await a.locator(tid('offer-draw')).count()) === 0, 'no second offer while one stands');
    await shot(b, 'draw-offer-360-th');
    await b.click(tid('draw-decline'));
    await until('the offer is gone on both', async () => (await state(a))?.drawOffer === null && (await b.locator(tid('draw-accept')).count()) === 0);
    assert((await state(a)).result === '*', 'declining changes nothing else');

    // Dara moves, then offers; Somchai accepts.
    const s = await state(b);
    await H.playMove([a, b], s.legal[0].slice(0, 4), 'click');
    await b.click(tid('offer-draw'));
    await a.waitForSelector(tid('draw-accept'));
    await a.click(tid('draw-accept'));
    await until('drawn by agreement', async () => (await state(b))?.reason === 'agreement');
    assert((await state(a)).result === '1/2-1/2', 'a draw');
    await until('the status says so', async () => /agreement/.test(await text(a, tid('status-sub'))));
    await shot(a, 'draw-agreed-1280-en');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
