// Draw offers at the table: offered, declined, offered again and accepted.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE, DESKTOP } = H;

  test('draw offer: one player offers, the other sees it and declines, then accepts a second offer', async () => {
    const { r, a, b } = await H.startedTable(DESKTOP, 'en-US', PHONE, 'th-TH');

    await a.click(tid('offer-draw'));
    await b.waitForSelector(tid('draw-accept'));
    assert(/Somchai/.test(await text(b, tid('rematch-note'))), 'the offer is shown, with the name');
    assert(/waiting for Dara/.test(await text(a, tid('rematch-note'))), 'the one who offered sees it waits');
    assert((await a.locator(tid('offer-draw')).count()) === 0, 'no second offer while one stands');
    await shot(b, 'draw-offer-360-th');
    await b.click(tid('draw-decline'));
    await until('the offer is gone on both', async () => (await state(a))?.drawOffer === null && (await b.locator(tid('draw-accept')).count()) === 0);
    assert((await state(a)).result === '*', 'declining changes nothing else');
    // The one who offered is told, and may offer again only after a move of their own.
    await until('the offerer is told it was declined', async () => /Dara declined your draw offer/.test(await text(a, tid('rematch-note'))));
    assert((await a.locator(tid('offer-draw')).count()) === 0, 'no second offer before a move of one\'s own');
    await shot(a, 'draw-declined-1280-en');

    // Dara moves, then offers; Somchai accepts.
    const s = await state(b);
    await H.playMove([a, b], s.legal[0].slice(0, 4), 'click');
    await until('the note goes once Somchai moved', async () => (await a.locator(tid('rematch-note')).count()) === 0);
    await a.waitForSelector(tid('offer-draw'));  // a new move: a new offer is allowed
    await b.click(tid('offer-draw'));
    await a.waitForSelector(tid('draw-accept'));
    await a.click(tid('draw-accept'));
    // Each page gets the end of the game in its own message: wait for both.
    await until('drawn by agreement on both pages', async () => (await state(b))?.reason === 'agreement' && (await state(a))?.reason === 'agreement');
    assert((await state(a)).result === '1/2-1/2' && (await state(b)).result === '1/2-1/2', 'a draw');
    await until('the status says so', async () => /agreement/.test(await text(a, tid('status-sub'))));
    await shot(a, 'draw-agreed-1280-en');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('quick messages: a fixed phrase shows on the sender\'s bar in each reader\'s language; one player may hide them', async () => {
    const { r, a, b } = await H.startedTable(DESKTOP, 'en-US', PHONE, 'th-TH');
    await a.click(tid('chat-toggle'));
    await a.click(tid('phrase-good-luck'));
    await until('Dara sees it in Thai', async () => (await text(b, tid('chat-bubble'))) === 'โชคดีนะ!');
    assert((await text(a, tid('chat-bubble'))) === 'Good luck!', 'the sender sees it in English on their own bar');
    assert((await b.locator(`${tid('bar-top')} ${tid('chat-bubble')}`).count()) === 1, 'on the sender\'s bar (the top one for Dara)');
    await shot(b, 'quick-message-360-th');
    // Dara hides Somchai's messages: the next one does not show for her.
    await b.click(tid('chat-toggle'));
    await b.click(tid('chat-quiet'));
    await b.click(tid('chat-toggle'));
    await b.evaluate(() => document.querySelectorAll('.chat-bubble').forEach((e) => e.remove()));
    await H.sleep(2100);  // one message every 2 seconds
    await a.click(tid('chat-toggle'));
    await a.click(tid('phrase-thanks'));
    await until('Somchai sees his own', async () => (await text(a, tid('chat-bubble'))) === 'Thank you!');
    await H.sleep(500);
    assert((await b.locator(tid('chat-bubble')).count()) === 0, 'hidden for Dara');
    // A spectator has no quick messages.
    const c = await newPage(PHONE, 'en-US');
    await c.goto(`${H.BASE}/p/${r.code}`);
    await c.click(tid('watch'));
    await c.waitForSelector(tid('game'));
    assert(!(await c.locator(tid('chat-toggle')).isVisible()), 'no quick messages for spectators');
  });
}
