// After the first state, the web client takes events: each move comes as a
// small `moved` message that the page applies to the state it holds.
export default function (H) {
  const { test, assert, until, state, PHONE, DESKTOP } = H;

  test('events: after the first state each move comes as an event; the pages hold the same game as a fresh load', async () => {
    const { a, b } = await H.startedTable(DESKTOP, 'en-US', PHONE, 'km-KH');
    const inA = a.wsIn.length, inB = b.wsIn.length;
    for (let i = 0; i < 6; ++i) {
      const s = await state(a);
      await H.playMove([a, b], s.legal[(i * 7) % s.legal.length].slice(0, 4), 'click');
    }
    const after = await state(b);
    for (const [p, from] of [[a, inA], [b, inB]]) {
      const got = p.wsIn.slice(from);
      assert(got.filter((t) => t === 'moved').length >= 6, `events came (${got.join(' ')})`);
      assert(!got.includes('state'), `no whole state after the first (${got.join(' ')})`);
      assert(!p.wsOut.includes('sync'), `no resync was needed (${p.wsOut.join(' ')})`);
    }
    // A fresh load gets the whole state: the same moves, SAN and position as built from events.
    await b.reload();
    await until('the state after the reload', async () => (await state(b))?.v === after.v);
    const fresh = await state(b);
    for (const k of ['moves', 'san', 'sanThai', 'fen', 'legal', 'turn', 'lastMove'])
      assert(JSON.stringify(fresh[k]) === JSON.stringify(after[k]), `${k} agrees (${JSON.stringify(fresh[k])} / ${JSON.stringify(after[k])})`);
    assert(JSON.stringify((await state(a)).moves) === JSON.stringify(fresh.moves), 'and the other page');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
