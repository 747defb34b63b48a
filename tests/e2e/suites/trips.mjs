// What players tripped over: a game page's head and its move count, robots.txt,
// a game's record compressed, and well-formed but illegal coordinates named as such.
export default function (H) {
  const { test, assert, until, newPage, tid, text, state, DESKTOP, PHONE, WHITE_MATE } = H;

  test("a game's page: its head names the game once and counts moves as players do; its record goes out compressed", async () => {
    const { a, b } = await H.startedTable(DESKTOP, 'en-US', PHONE, 'en-US');
    for (const m of WHITE_MATE) await H.playMove([a, b], m, 'click');
    await until('mate', async () => (await state(a))?.reason === 'checkmate');
    const id = (await state(a)).gameId;
    const html = await (await fetch(`${H.BASE}/g/${id}`)).text();
    const title = html.match(/<title>([^<]*)<\/title>/)?.[1];
    assert(title === 'Somchai – Dara · Makruk', `the page's title (${title})`);
    assert(!html.includes('Makruk · Makruk'), 'the game is named once');
    // Five half-moves from the start: three moves as players count them.
    assert(html.includes('content="1–0 (checkmate) after 3 moves.'), `three moves (${html.match(/og:description" content="([^"]*)"/)?.[1]})`);
    // The browser asks for the record in gzip (fetch sends Accept-Encoding and decodes it).
    const res = await a.evaluate(async (gid) => {
      const r = await fetch(`/api/games/${gid}`);
      return { ok: r.ok, size: (await r.text()).length };
    }, id);
    assert(res.ok && res.size > 512, `the record reads whole (${res.size} characters)`);
    const raw = await fetch(`${H.BASE}/api/games/${id}`, { headers: { 'accept-encoding': 'gzip' } });
    assert(raw.headers.get('content-encoding') === 'gzip', `the record in gzip (${raw.headers.get('content-encoding')})`);
    assert(Number(raw.headers.get('content-length')) < res.size, 'fewer bytes');
  });

  test('robots.txt is a robots file, and a missing file is not the app', async () => {
    const r = await fetch(`${H.BASE}/robots.txt`);
    assert(r.status === 200, `robots.txt found (${r.status})`);
    assert(/^text\/plain/.test(r.headers.get('content-type') ?? ''), `as text (${r.headers.get('content-type')})`);
    const body = await r.text();
    assert(/^User-agent: \*/m.test(body) && /^Disallow: \/api\//m.test(body), `its rules (${body})`);
    assert(!body.includes('<html'), 'not the app');
    const missing = await fetch(`${H.BASE}/no-such-file.txt`);
    assert(missing.status === 404, `a missing file is not found (${missing.status})`);
    const route = await fetch(`${H.BASE}/learn/makruk`);
    assert(route.status === 200 && (await route.text()).includes('<div id="app">'), 'a route of the app still loads it');
  });

  test('a plain move list with well-formed coordinates that are illegal there says "illegal", not "malformed"', async () => {
    const p = await newPage(DESKTOP, 'en-US');
    await p.goto(`${H.BASE}/analysis`);
    await p.waitForSelector(tid('import-text'));
    await p.fill(tid('import-text'), 'e3e4 e6e4');
    await p.click(tid('import-load'));
    await until('the error', async () => (await text(p, tid('import-error'))) !== '');
    const error = await text(p, tid('import-error'));
    assert(/illegal/.test(error) && error.includes('e6e4') && !/malformed/.test(error), `named as illegal (${error})`);
  });
}
