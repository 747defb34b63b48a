// The feedback board: a message sent from a game carries its table's code and shows on the
// public board as new; messages of other kinds; markup shown as text; the maintainers' page
// refuses a wrong key, and with the right one sets a status and a reply and hides a message,
// which the public board then shows (and leaves out). The pages in Thai and Khmer.
//
// The server takes 3 messages a minute from one address, and every browser here comes from
// 127.0.0.1: these tests send exactly three. A refusal (429) is shown by answering one
// request in the page itself.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, PHONE, DESKTOP } = H;
  const SECRET = H.ADMIN_SECRET ?? 'e2e-admin-secret';
  const MARKUP = '<img src=x onerror="window.__pwned=1"><b>bold</b> & <script>window.__pwned=2</script>';

  /** The board's messages as the page shows them, top first. */
  async function boardItems(page, testid = 'fb-item') {
    return page.$$eval(`[data-testid="${testid}"]`, (els) =>
      els.map((el) => ({
        id: Number(el.dataset.id),
        kind: el.dataset.kind,
        status: el.dataset.status,
        hidden: el.dataset.hidden,
        kindText: el.querySelector('[data-testid="fb-kind"]')?.textContent ?? '',
        badge: el.querySelector('[data-testid="fb-status"]')?.textContent ?? '',
        text: el.querySelector('[data-testid="fb-text"]')?.textContent ?? '',
        table: el.querySelector('[data-testid="fb-table"]')?.textContent ?? '',
        name: el.querySelector('[data-testid="fb-name"]')?.textContent ?? '',
        reply: el.querySelector('[data-testid="fb-reply-text"]')?.textContent ?? '',
        elements: el.querySelector('[data-testid="fb-text"]')?.children.length ?? -1,
      })),
    );
  }

  async function send(page, kind, body) {
    await page.click(`${tid('fb-kind')} [data-value="${kind}"]`);
    await page.fill(tid('fb-text-input'), body);
    await page.click(tid('fb-send'));
    await until('the confirmation', async () => (await text(page, tid('fb-sent'))).length > 0);
  }

  test('feedback: sent from a game (table attached), two more kinds, markup as text; the maintainers answer and hide; the board shows it', async () => {
    // A game between two players; the link beside the meta line carries the table's code.
    const r = await H.apiCreate({ name: 'Somchai', swapColors: false });
    await H.apiJson('POST', `/api/parties/${r.code}/join`, { name: 'Dara' });
    const page = await newPage(DESKTOP, 'en-US');
    await H.adoptSeat(page, r.code, r.token, r.seat, 'Somchai');
    await page.evaluate(() => localStorage.setItem('makruk.name', 'Somchai'));
    await page.goto(`${H.BASE}/p/${r.code}`);
    await page.click(tid('start'));
    await page.waitForSelector(tid('game'));
    const link = page.locator(tid('feedback-link'));
    await link.waitFor();
    const href = await link.getAttribute('href');
    assert(href === `/feedback?table=${r.code}&kind=bug`, `the game's link carries the table (${href})`);
    assert((await link.getAttribute('target')) === '_blank', 'it opens a new tab, the game stays');
    await shot(page, 'feedback-1280-en-game-link');
    const [fb] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    fb.setDefaultTimeout(10000 * H.SLOW);
    const errors = [];
    fb.on('pageerror', (e) => errors.push(String(e)));

    // The form: a bug, about this table, the remembered name, a counter.
    await fb.waitForSelector(tid('feedback-form'));
    assert((await text(fb, tid('fb-table-chip'))).includes(`About table ${r.code}`), 'the table is shown');
    assert((await fb.locator(`${tid('fb-kind')} [data-value="bug"][aria-pressed="true"]`).count()) === 1, 'kind: a bug');
    assert((await fb.inputValue(tid('fb-name-input'))) === 'Somchai', 'the remembered name is filled in');
    assert((await text(fb, tid('fb-counter'))) === '0 / 2000 characters', `the counter (${await text(fb, tid('fb-counter'))})`);
    // An empty message is not sent.
    await fb.click(tid('fb-send'));
    assert(/Write your message/.test(await text(fb, tid('fb-error'))), 'an empty message is refused');
    const bugText = 'The count did not start after the last Bia was taken.';
    await fb.fill(tid('fb-text-input'), bugText);
    assert((await text(fb, tid('fb-counter'))) === `${bugText.length} / 2000 characters`, 'the counter counts');
    await fb.click(tid('fb-send'));
    await until('the confirmation', async () => /Thank you/.test(await text(fb, tid('fb-sent'))));
    assert((await fb.inputValue(tid('fb-text-input'))) === '', 'the text is cleared');
    let items = await boardItems(fb);
    assert(items[0].text === bugText && items[0].status === 'new' && items[0].badge.includes('New'), `on the board as new (${JSON.stringify(items[0])})`);
    assert(items[0].table.includes(r.code) && items[0].name.includes('Somchai') && items[0].kindText === 'Bug', 'with its table, name and kind');
    const bugId = items[0].id;
    let pub = (await H.apiJson('GET', '/api/feedback')).json.items;
    const bug = pub.find((i) => i.id === bugId);
    assert(bug && bug.table === r.code && bug.kind === 'bug' && bug.status === 'new' && bug.lang === 'en', `the server has it (${JSON.stringify(bug)})`);

    // A setting request, the table taken off, with markup in it: shown as text.
    await fb.click(tid('fb-table-remove'));
    assert((await fb.locator(tid('fb-table-chip')).count()) === 0, 'the table is removed');
    assert(!fb.url().includes('table='), `and gone from the address (${fb.url()})`);
    await send(fb, 'setting', MARKUP);
    items = await boardItems(fb);
    assert(items[0].text === MARKUP && items[0].elements === 0, `the markup is text (${JSON.stringify(items[0])})`);
    assert(items[0].kind === 'setting' && items[0].kindText === 'Setting request' && items[0].table === '', 'a setting request, no table');
    assert((await fb.evaluate(() => window.__pwned)) === undefined, 'nothing ran');
    assert((await fb.locator(`${tid('fb-items')} img, ${tid('fb-items')} script`).count()) === 0, 'no element made');
    const settingId = items[0].id;

    // Plain feedback with no name: anonymous. This one the maintainers will hide.
    await fb.fill(tid('fb-name-input'), '');
    await send(fb, 'feedback', 'Please hide this one.');
    items = await boardItems(fb);
    assert(items[0].kind === 'feedback' && items[0].name === 'Anonymous', `anonymous feedback (${JSON.stringify(items[0])})`);
    const hideId = items[0].id;
    await shot(fb, 'feedback-1280-en-board');

    // A refusal is said plainly (the server's "too many" answer, given here by the page).
    await fb.route('**/api/feedback', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 429, contentType: 'application/json', body: '{"error":"too many","code":"rate-limited"}' })
        : route.continue(),
    );
    await fb.fill(tid('fb-text-input'), 'One more.');
    await fb.click(tid('fb-send'));
    await until('the refusal', async () => /Too many tries/.test(await text(fb, tid('fb-error'))));
    assert((await fb.inputValue(tid('fb-text-input'))) === 'One more.', 'the text is kept');
    await fb.unroute('**/api/feedback');

    // The maintainers' page: a wrong key, then the right one.
    const admin = await newPage(PHONE, 'en-US');
    await admin.goto(`${H.BASE}/admin`);
    await admin.waitForSelector(tid('admin-login'));
    await admin.fill(tid('admin-secret'), 'not-the-secret');
    await admin.click(tid('admin-sign-in'));
    await until('the wrong key is told', async () => /not right/.test(await text(admin, tid('admin-error'))));
    assert((await admin.evaluate(() => sessionStorage.getItem('makruk.adminSecret'))) === null, 'a wrong key is not kept');
    await admin.fill(tid('admin-secret'), SECRET);
    await admin.click(tid('admin-sign-in'));
    await admin.waitForSelector(tid('admin-items'));
    assert(!admin.url().includes(SECRET), 'the key is not in the address');
    assert((await admin.evaluate(() => sessionStorage.getItem('makruk.adminSecret'))) === SECRET, 'kept in this tab');
    assert((await admin.evaluate(() => localStorage.getItem('makruk.adminSecret'))) === null, 'and not beyond it');
    const adminIds = (await boardItems(admin, 'admin-item')).map((i) => i.id);
    for (const id of [bugId, settingId, hideId]) assert(adminIds.includes(id), `the maintainers see ${id}`);

    // The bug: planned, with a reply.
    const bugRow = admin.locator(`${tid('admin-item')}[data-id="${bugId}"]`);
    const replyText = 'Thanks! Fixed in the next version <i>soon</i>.';
    await bugRow.locator(tid('admin-status')).selectOption('planned');
    await bugRow.locator(tid('admin-reply')).fill(replyText);
    await bugRow.locator(tid('admin-save')).click();
    await until('saved', async () => (await admin.locator(`${tid('admin-item')}[data-id="${bugId}"][data-status="planned"] ${tid('admin-note')}`).textContent()) === 'Saved.');
    // The third: hidden.
    await admin.locator(`${tid('admin-item')}[data-id="${hideId}"] ${tid('admin-hide')}`).click();
    await admin.waitForSelector(`${tid('admin-item')}[data-id="${hideId}"][data-hidden="true"] ${tid('admin-hidden-mark')}`);
    assert(
      (await text(admin, `${tid('admin-item')}[data-id="${hideId}"] ${tid('admin-hide')}`)) === 'Show on the board',
      'the toggle now shows it again',
    );
    await shot(admin, 'feedback-360-en-admin');
    // A reload keeps the maintainer signed in (this tab), with what was saved.
    await admin.reload();
    await admin.waitForSelector(`${tid('admin-item')}[data-id="${bugId}"][data-status="planned"]`);
    assert((await admin.locator(`${tid('admin-item')}[data-id="${bugId}"] ${tid('admin-reply')}`).inputValue()) === replyText, 'the reply is there');

    const noKey = await H.apiJson('GET', '/api/admin/feedback');
    assert(noKey.status === 401, `no key, no list (${noKey.status})`);

    // The public board: the status and the reply, and not the hidden one.
    await fb.reload();
    await fb.waitForSelector(`${tid('fb-item')}[data-id="${bugId}"]`);
    items = await boardItems(fb);
    const shown = items.find((i) => i.id === bugId);
    assert(shown.status === 'planned' && shown.badge.includes('Planned') && shown.reply === replyText, `planned, with the reply (${JSON.stringify(shown)})`);
    assert(!items.some((i) => i.id === hideId), 'the hidden one is gone from the board');
    assert(items.some((i) => i.id === settingId), 'the other one stays');
    pub = (await H.apiJson('GET', '/api/feedback')).json.items;
    assert(!pub.some((i) => i.id === hideId), 'and from the public list');
    await shot(fb, 'feedback-1280-en-board-answered');
    assert(errors.length === 0 && admin.consoleErrors.filter((e) => !/status of 401/.test(e)).length === 0, `no page errors (${errors.join(' | ')} ${admin.consoleErrors.join(' | ')})`);
    await page.context().close();
    await admin.context().close();
  });

  test('feedback: the home page leads to it; the pages in Thai and Khmer; a typed message survives a language change', async () => {
    const page = await newPage(PHONE, 'en-US');
    await page.goto(`${H.BASE}/`);
    await page.waitForSelector(tid('feedback-links'));
    assert(/Send feedback or a bug/.test(await text(page, tid('feedback-send-link'))), 'the home page offers feedback');
    assert(/Request a setting/.test(await text(page, tid('feedback-setting-link'))), 'and a setting request');
    assert(/We publish the feedback/.test(await text(page, tid('feedback-board-link'))), 'and the board');
    await page.click(tid('feedback-setting-link'));
    await page.waitForSelector(tid('feedback-form'));
    assert(new URL(page.url()).pathname === '/feedback', `at /feedback (${page.url()})`);
    page.consoleErrors.length = 0; // from here on the feedback pages only (the home page's other parts are tested elsewhere)
    assert((await page.locator(`${tid('fb-kind')} [data-value="setting"][aria-pressed="true"]`).count()) === 1, 'kind: a setting request');
    await page.fill(tid('fb-text-input'), 'abc');
    await H.checkNoOverflow(page, 'feedback 360');

    const expect = {
      th: { h1: 'ความคิดเห็นและข้อบกพร่อง', label: 'ข้อความของคุณ', send: 'ส่ง', counter: '3 / 2000 ตัวอักษร', board: 'สิ่งที่ผู้เล่นส่งมา และสิ่งที่เราทำ', statuses: ['ใหม่', 'วางแผนไว้แล้ว', 'ทำแล้ว', 'จะไม่ทำ'] },
      km: { h1: 'មតិយោបល់ និងកំហុស', label: 'សាររបស់អ្នក', send: 'ផ្ញើ', counter: '៣ / ២០០០ តួអក្សរ', board: 'អ្វីដែលអ្នកលេងបានផ្ញើមក និងអ្វីដែលយើងបានធ្វើ', statuses: ['ថ្មី', 'គ្រោងនឹងធ្វើ', 'ធ្វើរួចហើយ', 'នឹងមិនធ្វើ'] },
    };
    for (const [l, e] of Object.entries(expect)) {
      await page.click(`[data-lang="${l}"]`);
      await page.waitForSelector(`${tid('feedback')}[data-lang="${l}"]`);
      assert((await text(page, 'main h1')) === e.h1, `${l}: the title (${await text(page, 'main h1')})`);
      assert((await text(page, 'label[for="fb-text"]')) === e.label, `${l}: the text's label`);
      assert((await text(page, tid('fb-send'))) === e.send, `${l}: the Send button`);
      assert((await text(page, tid('fb-counter'))) === e.counter, `${l}: the counter (${await text(page, tid('fb-counter'))})`);
      assert((await text(page, '#fb-board-title')) === e.board, `${l}: the board's title`);
      assert((await page.inputValue(tid('fb-text-input'))) === 'abc', `${l}: the typed text stays`);
      assert((await page.locator(`${tid('fb-kind')} [data-value="setting"][aria-pressed="true"]`).count()) === 1, `${l}: the kind stays`);
      await until(`${l}: the board is loaded`, async () => (await page.locator(`${tid('fb-item')}, ${tid('fb-board-status')}:not(:empty)`).count()) > 0);
      for (const it of await boardItems(page)) {
        assert(e.statuses.some((s) => it.badge.includes(s)), `${l}: the status badge is translated (${it.badge})`);
      }
      await page.fill(tid('fb-text-input'), '');
      await page.click(tid('fb-send'));
      assert(!/[A-Za-z]{4}/.test(await text(page, tid('fb-error'))), `${l}: the error is translated (${await text(page, tid('fb-error'))})`);
      await page.fill(tid('fb-text-input'), 'abc');
      await shot(page, `feedback-360-${l}`);
    }

    // The maintainers' page in Khmer, and the game link in Thai.
    await page.goto(`${H.BASE}/admin`);
    await page.waitForSelector(`${tid('admin')}[data-lang="km"]`);
    assert((await text(page, 'label[for="fb-secret"]')) === 'សោរបស់អ្នកថែទាំ', 'km: the key label');
    assert((await text(page, tid('admin-sign-in'))) === 'ចូល', 'km: Sign in');
    await page.click('[data-lang="th"]');
    await page.waitForSelector(`${tid('admin')}[data-lang="th"]`);
    assert((await text(page, tid('admin-sign-in'))) === 'เข้าสู่ระบบ', 'th: Sign in');
    assert(page.consoleErrors.length === 0, `no console errors (${page.consoleErrors.join(' | ')})`);
    await page.goto(`${H.BASE}/`);
    assert(/ส่งความคิดเห็น/.test(await text(page, tid('feedback-send-link'))), 'th: the home page link');
    await page.context().close();
  });
}
