// Recommendations: written by a player after a finished game, shown on the home page.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE } = H;

  test('recommend: after a finished game a player recommends it; the home page shows the average and the words', async () => {
    const { a, b } = await H.startedTable();
    assert(!(await b.locator(tid('recommend')).isVisible()), 'nothing to recommend during the game');
    await a.click(tid('resign'));
    await a.click(tid('resign-dialog-yes'));
    await b.waitForSelector(`${tid('recommend')}:not([hidden])`);
    await b.check(tid('star-4'));
    await b.fill(tid('recommend-text'), 'A <i>lovely</i> game');
    await shot(b, 'recommend-360-en');
    await b.click(tid('recommend-send'));
    await b.waitForSelector(tid('recommend-thanks'));
    assert(/★★★★☆/.test(await text(b, tid('recommend-thanks'))), 'thanked, with the stars given');
    const h = await newPage(PHONE, 'en-US');
    await h.goto(`${H.BASE}/`);
    await h.waitForSelector(`${tid('recommendations')}:not([hidden])`);
    assert(/of 5 stars from \d+ player/.test(await text(h, tid('recommend-average'))), 'the average');
    assert((await text(h, tid('recommendations'))).includes('A <i>lovely</i> game'), 'the words, as text');
    await shot(h, 'home-360-en-recommendations');
    // The learn pages show them too.
    await h.goto(`${H.BASE}/learn/makruk`);
    await h.waitForSelector(`${tid('learn')} ${tid('recommendations')}:not([hidden])`);
    assert((await text(h, `${tid('learn')} ${tid('recommendations')}`)).includes('A <i>lovely</i> game'), 'on the learn page');
  });
}
