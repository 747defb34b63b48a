// Full tables, spectators by name, rematch by agreement, and invite links with the table's key.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, apiCreate, apiJoin, adoptSeat, PHONE, DESKTOP } = H;

  test('full table: the prompt says so and offers to watch (by name) or start your own; a seat taken meanwhile keeps the name typed', async () => {
    const r = await apiCreate({ name: 'Somchai' });
    const code = r.code;
    // A newcomer opens the link while a seat is free…
    const x = await newPage(PHONE, 'en-US');
    await x.goto(`${H.BASE}/p/${code}`);
    await x.waitForSelector(tid('join'));
    await x.fill(tid('name'), 'Noi');
    // …someone else takes the last seat meanwhile…
    await apiJoin(code, 'Dara');
    await x.click(tid('join'));
    // …and the page says the table is full, with the name still there.
    await x.waitForSelector(tid('table-full'));
    assert(/full/.test(await text(x, tid('table-full'))), 'says the table is full');
    assert((await x.locator(tid('join')).count()) === 0, 'no Join button any more');
    assert((await x.inputValue(tid('name'))) === 'Noi', 'the name typed is kept');
    assert((await x.locator(tid('start-own')).getAttribute('href')) === '/new', 'a way to start a table of your own');
    await shot(x, 'full-table-360-en');

    // The host sees the watcher by name.
    const host = await newPage(DESKTOP, 'en-US');
    await adoptSeat(host, code, r.token, 0, 'Somchai');
    await host.goto(`${H.BASE}/p/${code}`);
    await host.waitForSelector(tid('invite'));
    await x.click(tid('watch'));
    await until('the host sees Noi watching', async () => /Watching: 1 \(Noi\)/.test(await text(host, tid('watching'))));

    // In Thai the same choice, translated.
    const y = await newPage(PHONE, 'th-TH');
    await y.goto(`${H.BASE}/p/${code}`);
    await y.click('[data-lang="th"]').catch(() => {});
    await y.waitForSelector(tid('table-full'));
    assert(/เต็ม/.test(await text(y, tid('table-full'))), 'full, in Thai');
    await shot(y, 'full-table-360-th');
    // (the browser logs the join's 409 answer itself; nothing else may go wrong)
    for (const p of [x, host, y]) {
      const errors = p.consoleErrors.filter((e) => !/status of 409/.test(e));
      assert(errors.length === 0, `no console errors (${errors.join(' | ')})`);
    }
  });

  test('rematch by agreement: offered, declined (both see it), offered again, withdrawn, then accepted', async () => {
    const { a, b } = await H.startedTable();
    // Whoever plays Black resigns at once (resigning is allowed any time).
    const s0 = await state(a);
    const blackPage = s0.black === 0 ? a : b;
    await blackPage.click(tid('resign'));
    await blackPage.click(tid('resign-dialog-yes'));
    await until('game over', async () => (await state(a))?.result === '1-0' && (await state(b))?.result === '1-0');
    const game1 = (await state(a)).game;

    // Dara offers; Somchai sees the offer and declines; Dara is told.
    await b.click(tid('rematch'));
    await a.waitForSelector(tid('rematch-accept'));
    assert(/Dara offers a rematch/.test(await text(a, tid('rematch-note'))), 'the offer is shown to the other player');
    assert(/waiting for Somchai/.test(await text(b, tid('rematch-note'))), 'the offer is shown to the one who made it');
    await shot(a, 'rematch-offer-1280-en');
    await a.click(tid('rematch-decline'));
    await until('Dara sees the decline', async () => /Somchai declined/.test(await text(b, tid('rematch-note'))));
    await b.waitForSelector(tid('rematch'));
    await shot(b, 'rematch-declined-360-en');
    assert((await state(b)).game === game1, 'no new game');

    // Offered again by Somchai, withdrawn, offered once more and accepted.
    await a.click(tid('rematch'));
    await b.waitForSelector(tid('rematch-accept'));
    await a.click(tid('rematch-withdraw'));
    await until('the offer is gone for Dara', async () => (await b.locator(tid('rematch-accept')).count()) === 0 && (await b.locator(tid('rematch')).count()) === 1);
    assert((await b.locator(tid('rematch-note')).count()) === 0, 'a withdrawn offer leaves no note');
    await a.click(tid('rematch'));
    await b.click(tid('rematch-accept'));
    await until('game 2 on both', async () => (await state(a))?.number === 2 && (await state(b))?.number === 2);
    assert((await a.locator(tid('rematch-note')).count()) === 0, 'no note in the new game');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('a bare code while the address is limited for wrong codes: the page says why and what works, and Try again recovers', async () => {
    const r = await apiCreate({ name: 'Somchai' });
    const p = await newPage(PHONE, 'en-US');
    // The server's answer to a limited address (its own behaviour is tested against the server):
    // a bare lookup answers 429; the keyed one is let through.
    let limited = true;
    await p.route(
      (url) => url.pathname === `/api/parties/${r.code}` && url.search === '',
      (route) =>
        limited
          ? route.fulfill({ status: 429, contentType: 'application/json', body: '{"error":"too many wrong codes; wait a minute","code":"rate-limited"}' })
          : route.continue(),
    );
    await p.goto(`${H.BASE}/p/${r.code}`);
    await p.waitForSelector(tid('code-limited'));
    assert(/invite link/.test(await text(p, tid('code-limited'))), 'says the invite link works');
    assert((await p.locator(tid('join')).count()) === 0, 'no empty join form');
    await shot(p, 'code-limited-360-en');
    limited = false;
    await p.click(tid('try-again'));
    await p.waitForSelector(tid('join'));
    // The keyed link never met the limit.
    const q = await newPage(PHONE, 'en-US');
    await q.route((url) => url.pathname === `/api/parties/${r.code}` && url.search === '', (route) =>
      route.fulfill({ status: 429, contentType: 'application/json', body: '{"error":"limited","code":"rate-limited"}' }),
    );
    await q.goto(`${H.BASE}/p/${r.code}?k=${r.party.key}`);
    await q.waitForSelector(tid('join'));
  });

  test('a valid code typed by hand opens while the network is limited for wrong codes (the browser proves it is no guess); a wrong one is still wrong', async () => {
    const r = await apiCreate({ name: 'Somchai' });
    // This test's network: its own address, as a proxy would name it.
    const headers = { 'X-Forwarded-For': '10.77.0.1' };
    for (let i = 0; i < 10; i++) {
      const miss = await fetch(`${H.BASE}/api/parties/ZZZZZ${i}`, { headers });
      assert(miss.status === 404, `wrong code ${i}: 404 (${miss.status})`);
    }
    const refused = await fetch(`${H.BASE}/api/parties/${r.code}`, { headers });
    const asked = (await refused.json()).proof;
    assert(refused.status === 429 && asked?.bits === 18, `limited, with a proof of work asked for (${refused.status} ${JSON.stringify(asked)})`);

    // The table's page opened by its bare code: checked, then the join prompt.
    const p = await newPage({ ...PHONE, extraHTTPHeaders: headers }, 'en-US');
    const proofs = [];
    p.on('request', (q) => {
      if (q.url().includes('proof=')) proofs.push(q.url());
    });
    await p.goto(`${H.BASE}/p/${r.code}`);
    await p.waitForSelector(tid('join'));
    assert(proofs.length === 1, `one lookup with a proof (${proofs.join(' ')})`);
    assert((await p.locator(tid('code-limited')).count()) === 0, 'not told to wait');
    await p.fill(tid('name'), 'Dara');
    await p.click(tid('join'));
    await until('seated by the typed code', async () => (await p.evaluate(() => window.__makruk?.seat?.() ?? null)) === 1);
    await shot(p, 'typed-code-while-limited-360-en');

    // "Join with a code" from the home page, as a third visitor at that network: the
    // table is full by now, so the page offers to watch it.
    const q = await newPage({ ...DESKTOP, extraHTTPHeaders: headers }, 'th-TH');
    await q.goto(`${H.BASE}/join`);
    await q.fill(tid('code'), r.code);
    await q.fill(tid('name'), 'Noi');
    await q.click(tid('join'));
    await q.waitForSelector(tid('table-full'));
    // A wrong code typed at that network is answered as wrong, not as "wait".
    await q.goto(`${H.BASE}/join`);
    await q.fill(tid('code'), 'YYYYY9');
    await q.fill(tid('name'), 'Noi');
    await q.click(tid('join'));
    // (first "checking this code", then the answer)
    await until('told no table has that code', async () => (await text(q, tid('error'))).includes('ไม่พบโต๊ะ'));
    for (const x of [p, q]) assert(x.consoleErrors.filter((m) => !/status of 4(04|09|29)/.test(m)).length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
    // Other addresses were never limited.
    assert((await fetch(`${H.BASE}/api/parties/${r.code}`)).status === 200, 'the usual address is not limited');
  });

  test('invite links carry the table key: the copied link, the QR code and a visit by the link', async () => {
    const r = await apiCreate({ name: 'Somchai' });
    assert(/^[0-9a-f]{16}$/.test(r.party.key), `the table has a key (${r.party.key})`);
    assert(r.link === `/p/${r.code}?k=${r.party.key}`, `the create answer's link carries it (${r.link})`);
    const host = await newPage(DESKTOP, 'en-US');
    await adoptSeat(host, r.code, r.token, 0, 'Somchai');
    await host.goto(`${H.BASE}/p/${r.code}`);
    await host.waitForSelector(tid('qr'));
    const qr = await host.locator(tid('qr')).getAttribute('src');
    assert(qr.endsWith(`?k=${r.party.key}`), `the QR code is of the keyed link (${qr})`);
    const guest = await newPage(PHONE, 'en-US');
    await guest.goto(`${H.BASE}/p/${r.code}?k=${r.party.key}`);
    await guest.fill(tid('name'), 'Dara');
    await guest.click(tid('join'));
    await until('seated by the link', async () => (await guest.evaluate(() => window.__makruk?.seat?.() ?? null)) === 1);
  });
}
