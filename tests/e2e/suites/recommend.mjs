// Recommendations: written by a player after a finished game, shown on the home page.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE } = H;

  test('recommend: after a finished game a player recommends it; the home page shows the average and the words', async () => {
    const { a, b } = await H.playedTable();
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

  test('recommend: a game resigned before five moves of one\'s own offers nothing to recommend', async () => {
    const { a, b } = await H.startedTable();
    await a.click(tid('resign'));
    await a.click(tid('resign-dialog-yes'));
    await until('over on both', async () => (await state(a))?.reason === 'resignation' && (await state(b))?.reason === 'resignation');
    assert(await b.locator(tid('recommend')).isHidden(), 'no recommendation card after a game not played');
    assert(await a.locator(tid('recommend')).isHidden(), 'nor for the one who resigned');
    await a.context().close();
    await b.context().close();
  });

  test('recommend: the maintainers hide a recommendation on /admin, the home page leaves it out, and Show brings it back', async () => {
    const { r, j, a, b } = await H.playedTable();
    await a.click(tid('resign'));
    await a.click(tid('resign-dialog-yes'));
    await b.waitForSelector(`${tid('recommend')}:not([hidden])`);
    const words = 'Fair play <b>and</b> a kind opponent';
    const sent = await H.apiJson('POST', '/api/recommendations', { code: r.code, token: j.token, stars: 3, text: words, lang: 'th' });
    assert(sent.status === 201, `recommended (${sent.status} ${JSON.stringify(sent.json)})`);
    const id = sent.json.recommendation.id;
    const listed = async () => (await H.apiJson('GET', '/api/recommendations')).json.items.some((x) => x.id === id);
    assert(await listed(), 'the public list has it');
    // What the home page's "What players say" shows ('' when it shows none).
    const home = await newPage(PHONE, 'en-US');
    const homeSays = async () => {
      const none = !(await H.apiJson('GET', '/api/recommendations')).json.count;
      await home.goto(`${H.BASE}/`);
      if (none) return '';
      await home.waitForSelector(`${tid('recommendations')}:not([hidden])`);
      return text(home, tid('recommendations'));
    };
    assert((await homeSays()).includes(words), 'the home page shows it');

    // The maintainers sign in; the newest recommendation is first, its words as text.
    const admin = await newPage(PHONE, 'en-US');
    await admin.goto(`${H.BASE}/admin`);
    await admin.waitForSelector(tid('admin-login'));
    await admin.fill(tid('admin-secret'), H.ADMIN_SECRET);
    await admin.click(tid('admin-sign-in'));
    const row = tid(`admin-rec-${id}`);
    await admin.waitForSelector(row);
    assert((await admin.locator(`${tid('admin-rec-items')} > li`).first().getAttribute('data-id')) === String(id), 'newest first');
    assert((await admin.getAttribute(row, 'data-hidden')) === 'false', 'shown');
    assert((await text(admin, `${row} ${tid('admin-rec-stars')}`)) === '★★★☆☆3 of 5 stars', 'the stars, and in words');
    assert((await text(admin, `${row} ${tid('admin-rec-text')}`)) === words, 'the words');
    assert((await admin.locator(`${row} ${tid('admin-rec-text')} *`).count()) === 0, 'as text, no element made');
    assert((await admin.getAttribute(`${row} ${tid('admin-rec-text')}`, 'lang')) === 'th', 'in the language it was written in');
    assert((await text(admin, `${row} ${tid('admin-rec-name')}`)) === 'From Dara', 'the name');
    assert((await text(admin, `${row} ${tid('admin-rec-table')}`)) === `Table ${r.code}`, 'the table');
    assert((await text(admin, `${row} ${tid('admin-rec-lang')}`)) === 'In Thai', 'the language');
    assert((await admin.locator(`${row} time`).getAttribute('datetime'))?.startsWith('20'), 'the date');
    const hide = admin.getByRole('button', { name: `Hide the recommendation by Dara, table ${r.code}`, exact: true });
    assert((await hide.count()) === 1, 'the button says which one it hides');

    // Hidden: marked so on /admin, gone from the public list and the home page.
    await hide.click();
    await admin.waitForSelector(`${row}[data-hidden="true"] ${tid('admin-rec-hidden-mark')}`);
    assert((await text(admin, `${row} ${tid('admin-rec-note')}`)) === 'Saved.', 'saved');
    const show = admin.getByRole('button', { name: `Show the recommendation by Dara, table ${r.code}`, exact: true });
    assert((await show.count()) === 1, 'the button now shows it again');
    assert(await show.evaluate((el) => el === document.activeElement), 'the focus stays on the button');
    await shot(admin, 'admin-360-en-recommendations');
    assert(!(await listed()), 'gone from the public list');
    assert(!(await homeSays()).includes(words), 'and from the home page');
    // A reload keeps it hidden.
    await admin.reload();
    await admin.waitForSelector(`${row}[data-hidden="true"]`);

    // Shown again.
    await show.click();
    await admin.waitForSelector(`${row}[data-hidden="false"]`);
    assert((await admin.locator(`${row} ${tid('admin-rec-hidden-mark')}`).count()) === 0, 'no longer marked hidden');
    assert(await listed(), 'back in the public list');
    assert((await homeSays()).includes(words), 'and on the home page');
    for (const p of [a, b, home, admin]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
