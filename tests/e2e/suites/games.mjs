// After the game: each game's PGN, from its own link, downloaded from the game screen.
export default function (H) {
  const { test, assert, until, startedTable, playMove, state, tid, text, shot, WHITE_MATE } = H;

  test('games: a finished game offers its PGN; the file names the players, the moves and the result, and reads back', async () => {
    const { a, b } = await startedTable();
    for (const m of WHITE_MATE) await playMove([a, b], m);
    await until('mate on both', async () => (await state(a))?.reason === 'checkmate' && (await state(b))?.reason === 'checkmate');
    const id = (await state(a)).gameId;
    assert(/^[0-9a-f]{12}$/.test(id), `the game has its own id (${id})`);
    for (const p of [a, b]) await p.waitForSelector(tid('download-pgn'));
    assert((await a.locator(tid('download-pgn')).getAttribute('href')) === `/api/games/${id}.pgn`, 'the link is the game\'s PGN');
    await shot(b, 'game-over-pgn-360-en');
    const [download] = await Promise.all([a.waitForEvent('download'), a.click(tid('download-pgn'))]);
    assert(download.suggestedFilename() === `makruk-${id}.pgn`, `file name (${download.suggestedFilename()})`);
    const fs = await import('node:fs');
    const pgn = fs.readFileSync(await download.path(), 'utf8');
    for (const part of ['[White "Somchai"]', '[Black "Dara"]', '[Result "1-0"]', '[Variant "makruk"]', '1. Nd2 Nd7 2. Nc4 Ne7 3. Nxd6#'])
      assert(pgn.includes(part), `the PGN has ${part}\n${pgn}`);
    // The same game as JSON, as the review will read it.
    const r = await fetch(`${H.BASE}/api/games/${id}`);
    const g = (await r.json()).game;
    assert(r.status === 200 && g.pgn === pgn && g.san.join(' ') === 'Nd2 Nd7 Nc4 Ne7 Nxd6#', `the JSON agrees (${r.status})`);
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('games: a game\'s own page /g/ID shows the board, the players, the moves to step through and the result, to anyone', async () => {
    const { a, b } = await startedTable();
    for (const m of WHITE_MATE) await playMove([a, b], m);
    await a.waitForSelector(tid('game-link'));
    const id = (await state(a)).gameId;
    const end = (await state(a)).fen;
    // A player follows the link from the finished game…
    await a.click(tid('game-link'));
    await a.waitForSelector(`${tid('game-page')} ${tid('board')}`);
    assert(new URL(a.url()).pathname === `/g/${id}`, `on the game's page (${a.url()})`);
    // …and a stranger opens it on a phone, in Thai.
    const x = await H.newPage(H.PHONE, 'th-TH');
    await x.goto(`${H.BASE}/g/${id}`);
    await x.waitForSelector(`${tid('game-page')} ${tid('board')}`);
    await until('the final position', async () => (await x.locator(tid('board')).getAttribute('data-fen')) === end);
    const page = await text(x, tid('game-page'));
    for (const part of ['Somchai', 'Dara', 'บันทึกเกม']) assert(page.includes(part), `the page shows ${part}`);
    assert((await x.locator(tid('rematch')).count()) === 0 && (await x.locator(tid('resign')).count()) === 0, 'read-only');
    assert((await x.locator(tid('download-pgn')).getAttribute('href')) === `/api/games/${id}.pgn`, 'its PGN');
    await x.click(tid('nav-first'));
    await until('the first position', async () => (await x.locator(tid('board')).getAttribute('data-fen')).startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR'));
    await x.click(tid('nav-next'));
    await until('after 1 ply', async () => (await x.locator(tid('board')).getAttribute('data-fen')).startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/3N4/R1SKMSNR'));
    await shot(x, 'game-page-360-th');
    // Shared: the link on LINE, whose preview is the picture the page's tags name; the picture itself.
    const line = await x.locator(tid('game-share-line')).getAttribute('href');
    assert(line === `https://social-plugins.line.me/lineit/share?url=${encodeURIComponent(`${H.BASE}/g/${id}`)}`, `LINE gets the game's link (${line})`);
    assert((await x.locator(tid('game-picture')).getAttribute('href')) === `/api/games/${id}.png`, 'the picture to keep');
    const html = await (await fetch(`${H.BASE}/g/${id}`)).text();
    const og = /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1];
    assert(og && /og:title" content="Somchai – Dara · Makruk"/.test(html), `the preview's tags (${og})`);
    for (const url of [new URL(og).pathname + new URL(og).search, `/api/games/${id}.png`]) {
      const r = await fetch(`${H.BASE}${url}`);
      const bytes = new Uint8Array(await r.arrayBuffer());
      assert(r.status === 200 && r.headers.get('content-type') === 'image/png' && bytes[1] === 0x50 && bytes.length > 10000, `${url} is a picture (${r.status}, ${bytes.length} bytes)`);
    }

    // The review, by the engine in this browser (WebAssembly in a worker): stopped at once
    // when asked, then run to its end at depth 8.
    await a.selectOption(tid('review-depth'), '14');
    await a.click(tid('review-start'));
    await a.waitForSelector(tid('review-stop'));
    await a.click(tid('review-stop'));
    await until('stopped', async () => (await a.locator(tid('review-start')).count()) === 1);
    assert(/Stopped/.test(await text(a, tid('review-status'))), 'says it stopped');
    await a.selectOption(tid('review-depth'), '8');
    await a.click(tid('review-start'));
    await until('analysed', async () => (await a.locator(`${tid('review')}[data-done="true"]`).count()) === 1, 60000);
    assert((await a.locator(`${tid('review-graph')} svg`).getAttribute('data-points')) === '6', 'an evaluation for each of the 6 positions');
    // 2... Ne7 allowed the mate: a blunder, marked in the move list and listed with the better move.
    assert((await a.locator(tid('review-4')).getAttribute('data-kind')) === 'blunder', 'Ne7 is a blunder');
    assert((await text(a, tid('mark-4'))) === '??', 'marked ?? in the move list');
    console.log(`     (review list: ${await text(a, tid('review-list'))})`);
    // Its entry shows the position before it, with the better move as an arrow.
    await a.click(tid('review-4'));
    await until('the position before Ne7', async () =>
      (await a.locator(tid('board')).getAttribute('data-fen')).startsWith('r1smksnr/3n4/pppppppp/8/2N5/PPPPPPPP/8/R1SKMSNR'));
    const arrow = await a.locator(tid('board')).getAttribute('data-arrow');
    assert(/^[a-h][1-8][a-h][1-8]/.test(arrow) && arrow !== 'g8e7', `the better move drawn (${arrow})`);
    assert((await a.locator('cg-board ~ svg g, .cg-shapes g, svg.cg-shapes g').count()) >= 1, 'an arrow on the board');
    console.log(`     (review in Chromium: ${await a.locator(tid('review')).getAttribute('data-nps')} nodes/s at depth 8)`);
    await shot(a, 'game-review-1280-en');
    // A link to no game says so.
    const y = await H.newPage(H.DESKTOP, 'en-US');
    await y.goto(`${H.BASE}/g/000000000000`);
    await y.waitForSelector(tid('game-missing'));
    assert((await text(y, tid('game-missing'))) === 'No game has that link.', 'says no game has that link');
    for (const p of [a, x]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
