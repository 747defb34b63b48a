// The free analysis board (/analysis): moves for both sides checked by the core in the
// browser, the engine's line, import of PGN / moves / FEN with the illegal move named,
// a game's PGN exported and imported again, and a game against the CPU from a position.
export default function (H) {
  const { test, assert, until, newPage, tid, text, shot, clickMove, startedTable, playMove, state, PHONE, DESKTOP, WHITE_MATE } = H;
  const fenOf = async (p) => p.locator(tid('analysis')).getAttribute('data-fen');

  test('analysis: both sides move, the engine shows its line, take back, import with an illegal move named', async () => {
    const p = await newPage(DESKTOP, 'en-US');
    await p.goto(`${H.BASE}/analysis`);
    await until('the start position', async () => (await fenOf(p))?.startsWith('rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w'));
    await until('the engine thinks', async () => Number(await p.locator(tid('engine-line')).getAttribute('data-depth')) >= 4, 20000);
    assert(/depth \d+ · [+-]?\d+\.\d\d/.test(await text(p, tid('engine-line'))), `depth and score (${await text(p, tid('engine-line'))})`);
    // Multi-PV: three lines, different first moves, each with a score and its moves; the best as an arrow.
    const pvs = p.locator(`${tid('engine-lines')} .engine-pv`);
    await until('three lines', async () => (await pvs.count()) === 3);
    const firsts = await pvs.evaluateAll((bs) => bs.map((b) => b.dataset.move));
    assert(new Set(firsts).size === 3, `different first moves (${firsts})`);
    for (const line of await pvs.allTextContents()) assert(/^[+-]?\d+\.\d\d \S+/.test(line), `a scored line (${line})`);
    await until('the arrow', async () => (await p.locator(tid('board')).getAttribute('data-arrow'))?.length === 4);
    await shot(p, 'analysis-lines-1280-en');
    // Choosing the second line plays its first move.
    const second = firsts[1];
    await pvs.nth(1).click();
    await until('its move played', async () => (await fenOf(p))?.includes(' b '));
    await until(`the board moved (${second})`, async () => (await p.locator(tid('board')).getAttribute('data-fen')) === (await fenOf(p)));
    await p.click(tid('analysis-back'));
    await until('back at the start', async () => (await fenOf(p))?.includes(' w '));
    await until('the board too', async () => (await p.locator(tid('board')).getAttribute('data-fen')) === (await fenOf(p)));
    await p.evaluate(() => window.scrollTo(0, 0)); // the lines are below the board
    // White, then Black, on the same board.
    await clickMove(p, 'e3e4');
    await until('after e4', async () => (await fenOf(p))?.includes(' b '));
    await clickMove(p, 'd6d5');
    await until('after d5', async () => (await fenOf(p))?.startsWith('rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w'));
    assert((await p.inputValue(tid('analysis-fen'))) === (await fenOf(p)), 'the FEN box follows');
    await p.click(tid('analysis-back'));
    await until('taken back', async () => (await fenOf(p))?.includes(' b '));
    await until('the board too', async () => (await p.locator(tid('board')).getAttribute('data-fen'))?.startsWith('rnsmksnr/8/pppppppp/8/4P3/'));
    // An illegal move in an imported game is named, and nothing changes.
    const before = await fenOf(p);
    await p.fill(tid('import-text'), '1. e4 d5 2. Kb5 Nd7');
    await p.click(tid('import-load'));
    await until('the error', async () => (await text(p, tid('import-error'))).includes("2. Kb5: illegal move 'Kb5'"));
    assert((await fenOf(p)) === before, 'the board did not change');
    // A FEN alone.
    await p.fill(tid('import-text'), '8/8/4k3/8/8/3MK3/8/7R b - - 0 30');
    await p.click(tid('import-load'));
    await until('the FEN loaded', async () => (await fenOf(p))?.startsWith('8/8/4k3/8/8/3MK3/8/7R b'));
    await until('on the board too', async () => (await p.locator(tid('board')).getAttribute('data-fen'))?.startsWith('8/8/4k3/8/8/3MK3/8/7R'));
    assert((await text(p, tid('import-error'))) === '', 'no error');
    assert((await p.locator(tid('bar-bottom')).getAttribute('data-color')) === 'w', 'White at the bottom, whoever moves');
    await p.click(tid('analysis-flip'));
    await until('turned', async () => (await p.locator(tid('bar-bottom')).getAttribute('data-color')) === 'b');
    await shot(p, 'analysis-1280-en');
    // The engine rests after a while on one position (a phone's battery), and thinks longer when asked.
    await p.click(tid('analysis-reset'));
    const depth = async () => Number(await p.locator(tid('engine-line')).getAttribute('data-depth'));
    const more = p.locator(tid('engine-more'));
    await until('the engine rests', async () => more.isVisible(), 60000);
    const rested = await depth();
    assert(rested >= 4 && rested < 30, `it rests at a depth short of its deepest (${rested})`);
    assert((await more.textContent()) === 'Think longer', `the button says so (${await more.textContent()})`);
    await H.sleep(1500);
    assert((await depth()) === rested && (await more.isVisible()), `no deeper while it rests (${await depth()})`);
    await more.click();
    await until('it thinks again', async () => !(await more.isVisible()));
    await until('deeper', async () => (await depth()) > rested, 60000);
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('analysis: a record that goes on past our count loads whole with the end marked; a collection lists its games to pick', async () => {
    const p = await newPage(PHONE, 'km-KH');
    await p.goto(`${H.BASE}/analysis`);
    await p.waitForSelector(tid('import-text'));
    // The count ran out at Black's 2nd move (our rules: a draw); the record was played on.
    await p.fill(tid('import-text'), '[FEN "7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1"]\n\n1... Kh7 2. Ra7+ Kh8 3. Ra6 Kh7 4. Ra5 *\n');
    await p.click(tid('import-load'));
    await until('the whole record', async () => (await fenOf(p))?.startsWith('8/7k/8/R7/1S1S4/1NK5/6R1/8 b'));
    await until('the end marked', async () => (await p.locator(tid('rules-ended')).getAttribute('data-ply')) === '2');
    const note = await text(p, tid('rules-ended'));
    assert(note.startsWith('តាមវិធានរបស់យើង') && note.includes('ទក៧+'), `the note in Khmer, the move in its notation (${note})`);
    await p.waitForSelector(tid('mark-2'));
    assert((await p.locator(tid('import-error')).textContent()) === '', 'no error');
    // The rest is open for analysis: the engine thinks, a move can be played, and stepping works.
    await until('the engine thinks past the end', async () => Number(await p.locator(tid('engine-line')).getAttribute('data-depth')) >= 2, 40000);
    await p.locator(tid('board')).scrollIntoViewIfNeeded(); // the import box is below the board
    await clickMove(p, 'h7h8');
    await until('played on', async () => (await fenOf(p))?.startsWith('7k/8/8/R7/1S1S4/1NK5/6R1/8 w'));
    for (let i = 0; i < 6; i++) await p.click(tid('analysis-back'));
    await until('back before the end', async () => (await fenOf(p))?.startsWith('8/7k/8/8/1S1S4/1NK5/6R1/R7 w'));
    await until('no end marked there', async () => await p.locator(tid('rules-ended')).isHidden());
    // A collection: its games listed (one unreadable), each loaded when picked.
    await p.fill(tid('import-text'), '[Event "Club"]\n[White "Somchai"]\n[Black "Dara"]\n\n1. e4 d5 *\n\n[White "Bopha"]\n[Black "Niran"]\n\n1. c4 *\n\n[White "X"]\n\n1. Zz9 *\n');
    await p.click(tid('import-load'));
    await until('the first game', async () => (await fenOf(p))?.startsWith('rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w'));
    const options = await p.locator(`${tid('import-games')} option`).allTextContents();
    assert(options.length === 3 && options[0].includes('Somchai – Dara') && options[0].includes('Club') && options[2].includes('អានមិនបាន'), `the games listed (${options})`);
    await p.selectOption(tid('import-games'), '1');
    await until('the second game', async () => (await fenOf(p))?.startsWith('rnsmksnr/8/pppppppp/8/2P5/PP1PPPPP/8/RNSKMSNR b'));
    await p.selectOption(tid('import-games'), '2');
    await until('the third refused, with the move named', async () => (await text(p, tid('import-error'))).includes('Zz9'));
    assert((await fenOf(p))?.startsWith('rnsmksnr/8/pppppppp/8/2P5/'), 'the board kept the game before');
    await shot(p, 'analysis-collection-360-km');
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('analysis: setting up a position with the palette; one no game can be in is refused with its reason', async () => {
    const p = await newPage(PHONE, 'en-US');
    await p.goto(`${H.BASE}/analysis`);
    await until('ready', async () => !!(await fenOf(p)));
    await p.click(tid('analysis-setup'));
    await p.waitForSelector(tid('setup'));
    await p.click(tid('setup-clear'));
    // Only a White king: refused, with the core's reason.
    await p.click(tid('setup-pick-wk'));
    await p.click(tid('setup-e1'));
    await p.click(tid('setup-done'));
    await until('refused', async () => (await text(p, tid('setup-error'))).startsWith('Not a position a game can be in: '));
    // Add the Black king and a White rook; Black to move.
    await p.click(tid('setup-pick-bk'));
    await p.click(tid('setup-e8'));
    await p.click(tid('setup-pick-wr'));
    await p.click(tid('setup-a2'));
    await p.click(tid('setup-a3'));
    await p.click(tid('setup-a3')); // the same piece again empties the square
    assert((await p.locator(tid('setup-a3')).getAttribute('data-piece')) === '', 'a3 emptied');
    await p.selectOption(tid('setup-side'), 'b');
    await shot(p, 'analysis-setup-360-en');
    await H.checkNoOverflow(p, 'set-up at 360 px');
    await p.click(tid('setup-done'));
    await until('the position set up', async () => (await fenOf(p))?.startsWith('4k3/8/8/8/8/8/R7/4K3 b'));
    await until('on the board', async () => (await p.locator(tid('board')).getAttribute('data-fen'))?.startsWith('4k3/8/8/8/8/8/R7/4K3'));
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('analysis: a game exported as PGN loads back to the same position; from there, a game against the CPU', async () => {
    const { a, b } = await startedTable();
    for (const m of WHITE_MATE.slice(0, 4)) await playMove([a, b], m);
    await a.click(tid('resign'));
    await a.click(tid('resign-dialog-yes'));
    await until('over', async () => (await state(a))?.reason === 'resignation');
    const s = await state(a);
    const pgn = await (await fetch(`${H.BASE}/api/games/${s.gameId}.pgn`)).text();
    const p = await newPage(PHONE, 'th-TH');
    await p.goto(`${H.BASE}/analysis`);
    await p.waitForSelector(tid('import-text'));
    await p.fill(tid('import-text'), pgn);
    await p.click(tid('import-load'));
    await until('the game\'s position', async () => (await fenOf(p)) === s.fen);
    // The game's own page opens the same position in the analysis board.
    await a.goto(`${H.BASE}/g/${s.gameId}`);
    await a.click(tid('open-analysis'));
    await until('opened from the game page', async () => (await fenOf(a)) === s.fen);
    // Play on from here against the CPU (level 1): a CPU table from that position.
    await p.selectOption(tid('analysis-level'), '1');
    await p.fill(tid('name'), 'นักเรียน'); // a fresh browser: the table asks for a name
    await p.click(tid('analysis-cpu'));
    await until('at the new table', async () => /\/p\/[A-Z0-9]{6}$/.test(new URL(p.url()).pathname));
    await until('the game from that position', async () => (await state(p))?.fen?.split(' ')[0] === s.fen.split(' ')[0]);
    await shot(p, 'analysis-to-cpu-360-th');
    for (const x of [a, p]) assert(x.consoleErrors.length === 0, `no console errors (${x.consoleErrors.join(' | ')})`);
  });
}
