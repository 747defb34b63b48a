// After the game: each game's PGN, from its own link, downloaded from the game screen.
export default function (H) {
  const { test, assert, until, startedTable, playMove, state, tid, shot, WHITE_MATE } = H;

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
}
