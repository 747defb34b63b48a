// Playing without a mouse: the board is a grid of squares reached with Tab, moved over with
// the arrow keys, a piece picked up and put down with Enter or Space, Escape puts it back;
// a move can also be typed. What happens is read out in a live region, in the page's language.

const THAI_FILES = 'กขคงจฉชญ';
const THAI_RANKS = '๑๒๓๔๕๖๗๘';
// No pawns left and Black has fewer pieces: Black may count (the harness's declaration test uses it too).
const COUNT_FEN = '1n1k1s1r/8/3M~3n/8/8/5Nm~1/8/1NSKMS2 b - - 0 20';
const thaiSquare = (sq) => THAI_FILES[sq.charCodeAt(0) - 97] + THAI_RANKS[Number(sq[1]) - 1];

export default function (H) {
  const { test, assert, until, sleep, newPage, shot, tid, text, state, waitV, apiCreate, apiJoin, adoptSeat, WHITE_MATE, DESKTOP, PHONE } = H;

  const focused = (page) =>
    page.evaluate(() => {
      const el = document.activeElement;
      return el?.classList.contains('kb-cell')
        ? { square: el.dataset.square, label: el.getAttribute('aria-label'), selected: el.getAttribute('aria-selected') }
        : null;
    });

  /** The last thing the live region said. */
  const lastSaid = (page) => page.evaluate((sel) => document.querySelector(sel)?.lastElementChild?.textContent ?? '', tid('announce'));

  /** Tabs from wherever the focus is until a square of the board has it. */
  async function tabToBoard(page) {
    for (let i = 0; i < 40; i++) {
      if (await focused(page)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error('Tab never reached the board');
  }

  /** Walks the focus to a square with the arrow keys, as the board is turned. */
  async function arrowTo(page, sq) {
    await tabToBoard(page);
    const orientation = await page.locator(tid('board')).getAttribute('data-orientation');
    const sign = orientation === 'black' ? -1 : 1;
    const at = (await focused(page)).square;
    const df = (sq.charCodeAt(0) - at.charCodeAt(0)) * sign;
    const dr = (Number(sq[1]) - Number(at[1])) * sign;
    for (let i = 0; i < Math.abs(df); i++) await page.keyboard.press(df > 0 ? 'ArrowRight' : 'ArrowLeft');
    for (let i = 0; i < Math.abs(dr); i++) await page.keyboard.press(dr > 0 ? 'ArrowUp' : 'ArrowDown');
    const now = await focused(page);
    assert(now?.square === sq, `the focus is on ${sq} (${JSON.stringify(now)})`);
    return now;
  }

  /** Plays a move with the keys only, and waits until every page has it. */
  async function keyMove(pages, mover, move, key) {
    const s0 = await state(mover);
    await arrowTo(mover, move.slice(0, 2));
    await mover.keyboard.press(key);
    const picked = await focused(mover);
    assert(picked.selected === 'true', `${move}: the piece is picked up (${JSON.stringify(picked)})`);
    await arrowTo(mover, move.slice(2, 4));
    const target = await focused(mover);
    assert(/possible move|เดินมาได้|អាចដើរមកទីនេះបាន/.test(target.label), `${move}: the square says a move can go there (${target.label})`);
    await mover.keyboard.press(key);
    for (const p of pages) await waitV(p, s0.v + 1);
    const s1 = await state(mover);
    assert(s1.moves[s0.moves.length]?.startsWith(move), `played ${move} (got ${s1.moves[s0.moves.length]})`);
    return s1;
  }

  async function twoPlayers(localeA, localeB, sizeB = DESKTOP, table = {}) {
    const a = await newPage(DESKTOP, localeA);
    const b = await newPage(sizeB, localeB);
    const r = await apiCreate({ name: 'Anan', swapColors: false, ...table });
    const j = await apiJoin(r.code, 'Bua');
    await adoptSeat(a, r.code, r.token, r.seat, 'Anan');
    await adoptSeat(b, r.code, j.token, j.seat, 'Bua');
    await a.goto(`${H.BASE}/p/${r.code}`);
    await b.goto(`${H.BASE}/p/${r.code}`);
    await a.waitForSelector(tid('start'));
    // Start, by keys too
    await a.focus(tid('start'));
    await a.keyboard.press('Enter');
    for (const p of [a, b]) {
      await p.waitForSelector(tid('game'));
      await waitV(p, 0);
    }
    return { a, b, code: r.code };
  }

  test('keyboard: a game to checkmate with the keys only; each move read out in English and in Thai', async () => {
    const { a, b } = await twoPlayers('en-US', 'th-TH', PHONE);
    // White (a, English) and Black (b, Thai, on a phone)
    await tabToBoard(a);
    const first = await focused(a);
    assert(/^[a-h][1-8], (White|Black) [A-Z]|^[a-h][1-8], empty$/.test(first.label), `a square reads its name and piece (${first.label})`);
    const e3 = await arrowTo(a, 'e3');
    assert(e3.label === 'e3, White Bia', `e3 reads "e3, White Bia" (${e3.label})`);
    const d5 = await arrowTo(a, 'd5');
    assert(d5.label === 'd5, empty', `an empty square (${d5.label})`);

    // Black may not move first: it says so, in Thai
    await arrowTo(b, 'g8');
    const g8 = await focused(b);
    assert(g8.label === `${thaiSquare('g8')} ม้าดำ`, `a square in Thai notation (${g8.label})`);
    await b.keyboard.press('Enter');
    await until('"not your turn" said', async () => (await lastSaid(b)) === 'ยังไม่ถึงตาของคุณ');

    // pick up with Space, put back with Escape
    await arrowTo(a, 'b1');
    await a.keyboard.press(' ');
    await until('picked up', async () => (await a.locator('cg-board square.selected').count()) === 1);
    assert(/picked up/.test(await lastSaid(a)), `picking up is said (${await lastSaid(a)})`);
    await a.keyboard.press('Escape');
    await until('put back', async () => (await a.locator('cg-board square.selected').count()) === 0);
    assert((await focused(a)).selected === 'false', 'no square selected');
    assert((await lastSaid(a)) === 'Put back.', `putting back is said (${await lastSaid(a)})`);

    // White's moves with Enter, Black's with Space
    const pages = [a, b];
    let s = await state(a);
    for (const [i, m] of WHITE_MATE.entries()) {
      const white = i % 2 === 0;
      s = await keyMove(pages, white ? a : b, m, white ? 'Enter' : ' ');
      const [from, to] = [m.slice(0, 2), m.slice(2, 4)];
      await until(`${m} read out in English`, async () => (await lastSaid(a)).includes(`from ${from} to ${to}`));
      await until(`${m} read out in Thai`, async () => (await lastSaid(b)).includes(`จาก ${thaiSquare(from)} ไป ${thaiSquare(to)}`));
      if (i === 0) {
        assert((await lastSaid(a)) === 'White: Ma from b1 to d2', `the first move in words (${await lastSaid(a)})`);
        assert((await lastSaid(b)) === `ฝ่ายขาวเดินม้า จาก ${thaiSquare('b1')} ไป ${thaiSquare('d2')}`, `in Thai (${await lastSaid(b)})`);
        // the arrows on the board move over the squares, not through the move list
        await a.keyboard.press('ArrowLeft');
        await sleep(100);
        assert((await text(a, tid('viewing'))) === '', 'still at the latest position');
      }
    }
    assert(s.result === '1-0' && s.reason === 'checkmate', `White mates (${s.result} ${s.reason})`);
    const saidA = await lastSaid(a);
    const saidB = await lastSaid(b);
    assert(saidA === 'White: Ma from c4 to d6, takes Bia. Checkmate!', `the mate in English (${saidA})`);
    assert(saidB.startsWith('ฝ่ายขาวเดินม้า') && saidB.includes('กินเบี้ย') && saidB.endsWith('รุกจน!'), `the mate in Thai (${saidB})`);
    await until('the result shown', async () => /You win/.test(await text(a, tid('status-main'))));
    await shot(a, 'keyboard-1280-en-mate');
    await shot(b, 'keyboard-360-th-mate');
    for (const p of pages) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('keyboard: typing a move (SAN, coordinates, Thai and Khmer notation) plays it; a wrong one says why', async () => {
    const { a, b } = await twoPlayers('en-US', 'km-KH');
    const input = tid('typed-move');
    const typeMove = async (p, mv) => {
      await p.focus(input);
      await p.keyboard.type(mv);
      await p.keyboard.press('Enter');
    };
    // Black types before its turn
    await typeMove(b, 'e6e5');
    await until('not your turn (Khmer)', async () => (await text(b, tid('typed-msg'))) === 'មិនទាន់ដល់វេនរបស់អ្នកទេ។');
    await b.fill(input, '');
    // a move that is not legal, then one that is not a move at all
    await typeMove(a, 'Ke3');
    await until('refused', async () => (await text(a, tid('typed-msg'))) === 'Not a legal move: Ke3');
    assert((await a.locator(input).getAttribute('aria-invalid')) === 'true', 'the field is marked invalid');
    await a.fill(input, '');
    await typeMove(a, 'hello');
    await until('refused', async () => (await text(a, tid('typed-msg'))) === 'Not a legal move: hello');
    assert((await state(a)).moves.length === 0, 'nothing played');
    await a.fill(input, '');

    const played = async (n, move) => {
      for (const p of [a, b]) await waitV(p, n);
      const s = await state(a);
      assert(s.moves[n - 1]?.startsWith(move), `move ${n} is ${move} (${s.moves.join(' ')})`);
    };
    await typeMove(a, 'e4'); // SAN
    await played(1, 'e3e4');
    assert((await a.locator(input).inputValue()) === '', 'the field is emptied');
    await until('read out in Khmer', async () => (await lastSaid(b)).startsWith('ខាងសដើរត្រី'));
    await typeMove(b, 'សង៧'); // Khmer notation: Seh (Ma) to e7
    await played(2, 'g8e7');
    await until('read out in English', async () => (await lastSaid(a)) === 'Black: Ma from g8 to e7');
    await typeMove(a, 'b1-d2'); // coordinates
    await played(3, 'b1d2');
    await typeMove(b, 'e6e5');
    await played(4, 'e6e5');
    await typeMove(a, 'nc4'); // a lower-case piece letter
    await played(5, 'd2c4');
    await b.click('[data-lang="th"]');
    await typeMove(b, 'มจ๗ฉ๕'); // Thai notation, the whole from-square: Ma e7 to f5
    await played(6, 'e7f5');
    await shot(b, 'keyboard-1280-th-typed');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });

  test('keyboard: the count read out as it starts, goes up and stops (English and Khmer)', async () => {
    const { a, b } = await twoPlayers('en-US', 'km-KH', DESKTOP, { counting: 'declare', fen: COUNT_FEN });
    // b holds Black, the side with fewer pieces, to move
    await b.waitForSelector(tid('count'));
    await b.focus(tid('count'));
    await b.keyboard.press('Enter');
    await until('the count start read out (en)', async () => (await lastSaid(a)) === 'Black counts (board count): 0 / 64');
    await until('the count start read out (km)', async () => (await lastSaid(b)) === 'ខាងខ្មៅចាប់ផ្តើមរាប់ (រាប់ក្តារ)៖ ០ / ៦៤');
    const s = await state(b);
    const mv = s.legal.find((m) => m.startsWith('h6')) ?? s.legal[0];
    await keyMove([a, b], b, mv, 'Enter');
    await until('the count goes up', async () => (await lastSaid(a)).endsWith('Count 1 / 64'));
    await until('in Khmer too', async () => (await lastSaid(b)).endsWith('រាប់ ១ / ៦៤'));
    await b.waitForSelector(tid('stop'));
    await b.focus(tid('stop'));
    await b.keyboard.press('Enter');
    await until('the stop read out', async () => (await lastSaid(a)) === 'The count stopped.');
    for (const p of [a, b]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
