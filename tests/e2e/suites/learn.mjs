// "Learn the game" (issue 13, point 2): a page per game at /learn/makruk and /learn/ouk,
// reached from the home page and from the game screen; the rules in short, each piece's
// moves on a small board, Ouk Chatrang's first-move jumps, the count with its limits table
// and two worked examples, the house rules, questions and answers, and a lesson per piece;
// in Thai, English and Khmer, at 360 px without sideways scrolling.
import path from 'node:path';

// Square names as the page writes them (the app's notation: notation.ts).
const TH_FILES = 'กขคงจฉชญ';
const TH_RANKS = '๑๒๓๔๕๖๗๘';
const KM_FILES = 'កខគឃងចឆជ';
const KM_RANKS = '១២៣៤៥៦៧៨';
function squareIn(lang, sq) {
  const f = sq.charCodeAt(0) - 97;
  const r = Number(sq[1]) - 1;
  if (lang === 'th') return TH_FILES[f] + TH_RANKS[r];
  if (lang === 'km') return KM_FILES[f] + KM_RANKS[r];
  return sq;
}

// What each language must show (written here from the texts the page is meant to have).
const WORDS = {
  en: { locale: 'en-US', makruk: 'Learn Makruk', ouk: 'Learn Ouk Chatrang', count: 'Piece count', ma: { makruk: 'Ma', ouk: 'Seh' }, met: { makruk: 'Met', ouk: 'Neang' }, house: 'House rules' },
  th: { locale: 'th-TH', makruk: 'เรียนหมากรุกไทย', ouk: 'เรียนอุกจัตรังค์', count: 'นับศักดิ์หมาก', ma: { makruk: 'ม้า', ouk: 'ม้า' }, met: { makruk: 'เม็ด', ouk: 'เม็ด' }, house: 'กติกาของโต๊ะ' },
  km: { locale: 'km-KH', makruk: 'រៀនលេងម៉ាករុក', ouk: 'រៀនលេងអុកចត្រង្គ', count: 'រាប់កូនអុក', ma: { makruk: 'សេះ', ouk: 'សេះ' }, met: { makruk: 'នាង', ouk: 'នាង' }, house: 'ច្បាប់របស់តុ' },
};

// docs/rules.md §5: two rooks 8; one rook 16; two khons 22; two knights 32; one khon 44; otherwise 64.
const LIMITS = ['8', '16', '22', '32', '44', '64'];

export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, waitV, clickMove, apiCreate, adoptSeat, checkNoOverflow, PHONE, DESKTOP } = H;

  async function openLearn(page, variant) {
    await page.goto(`${H.BASE}/learn/${variant}`);
    await page.waitForSelector(`${tid('learn')}[data-variant="${variant}"]`);
  }

  async function fullShot(page, name) {
    await page.screenshot({ path: path.join(H.ART, `${name}.png`), fullPage: true });
  }

  /** The squares marked on a diagram, by kind: { move: [...], capture: [...], leap: [...] }. */
  async function marks(page, id) {
    return page.evaluate((sel) => {
      const out = { move: [], capture: [], leap: [] };
      for (const el of document.querySelectorAll(`${sel} [data-mark]`)) out[el.dataset.mark].push(el.dataset.sq);
      for (const k of Object.keys(out)) out[k].sort();
      return out;
    }, tid(`diagram-${id}`));
  }

  test('learn: reachable from the home page (both games) and from a game screen, in a new tab', async () => {
    // the server answers the page's paths with the app
    for (const v of ['makruk', 'ouk']) {
      const r = await fetch(`${H.BASE}/learn/${v}`);
      const body = await r.text();
      assert(r.status === 200 && body.includes('<div id="app">'), `/learn/${v} serves the app (${r.status})`);
    }
    const page = await newPage(PHONE, 'en-US');
    await page.goto(`${H.BASE}/`);
    await page.waitForSelector(tid('learn-links'));
    await checkNoOverflow(page, 'home with the learn links');
    for (const v of ['makruk', 'ouk']) {
      await page.click(tid(`learn-${v}`));
      await page.waitForSelector(`${tid('learn')}[data-variant="${v}"]`);
      assert(new URL(page.url()).pathname === `/learn/${v}`, `home → /learn/${v} (${page.url()})`);
      assert((await text(page, tid('learn-title'))) === WORDS.en[v], `the ${v} page's title`);
      await page.goBack();
      await page.waitForSelector(tid('learn-links'));
    }
    // from one game's page to the other's
    await page.click(tid('learn-makruk'));
    await page.waitForSelector(tid('learn-other'));
    await page.click(tid('learn-other'));
    await page.waitForSelector(`${tid('learn')}[data-variant="ouk"]`);
    // a section link of the contents scrolls to it and keeps the page
    await page.click('.learn-toc a[href="#learn-count"]');
    await until('scrolled to the count', async () => {
      const top = await page.evaluate(() => document.getElementById('learn-count').getBoundingClientRect().top);
      return top >= 0 && top < 200;
    });
    assert((await page.locator(`${tid('learn')}[data-variant="ouk"]`).count()) === 1, 'still the Ouk page after the contents link');
    await page.context().close();

    // the game screen: a "Rules" link beside the meta line opens this game's page in a new tab
    const r = await apiCreate({ name: 'Sokha', cpu: 1, variant: 'ouk' });
    const g = await newPage(PHONE, 'en-US');
    await adoptSeat(g, r.code, r.token, r.seat ?? 0, 'Sokha');
    await g.goto(`${H.BASE}/p/${r.code}`);
    await g.waitForSelector(tid('game'));
    await waitV(g, 0);
    const a = g.locator(tid('learn-link'));
    await a.waitFor();
    assert((await a.getAttribute('href')) === '/learn/ouk', `the link goes to the game's rules (${await a.getAttribute('href')})`);
    assert((await a.getAttribute('target')) === '_blank', 'it opens a new tab');
    assert((await a.innerText()).includes('Rules'), 'it says Rules');
    // it stays the same element while the game goes on, so a keyboard player keeps the focus on it
    await g.evaluate(() => window.scrollTo(0, 0));
    await clickMove(g, 'e3e4', true);
    await a.focus();
    await g.evaluate(() => (document.querySelector('[data-testid="learn-link"]').dataset.kept = 'yes'));
    await waitV(g, 2); // the CPU's answer comes while the link has the focus
    assert((await g.evaluate(() => document.activeElement?.dataset.kept)) === 'yes', `the link kept its focus while the CPU moved (${g.url()})`);
    await a.scrollIntoViewIfNeeded();
    await shot(g, 'learn-game-link-360-en');
    const [tab] = await Promise.all([g.context().waitForEvent('page'), a.click()]);
    await tab.waitForSelector(`${tid('learn')}[data-variant="ouk"]`);
    assert(new URL(tab.url()).pathname === '/learn/ouk', 'the new tab shows /learn/ouk');
    assert((await g.locator(tid('game')).count()) === 1, 'the game stays open in its own tab');
    await g.context().close();
  });

  test('learn: both pages in Thai, English and Khmer: sections, diagrams with their marks, Ouk’s jumps, the limits table, no overflow at 360 px', async () => {
    for (const [lang, w] of Object.entries(WORDS)) {
      const page = await newPage(PHONE, w.locale);
      for (const v of ['makruk', 'ouk']) {
        await openLearn(page, v);
        assert((await page.evaluate(() => document.documentElement.lang)) === lang, `${lang}: html lang`);
        assert((await text(page, tid('learn-title'))) === w[v], `${lang} ${v}: the title (${await text(page, tid('learn-title'))})`);
        const sections = ['learn-quick', 'learn-pieces', 'learn-lesson', 'learn-ending', 'learn-count', 'learn-house', 'learn-faq'];
        for (const s of sections) assert(await page.locator(tid(s)).isVisible(), `${lang} ${v}: section ${s}`);
        assert((await page.locator(tid('learn-leaps')).count()) === (v === 'ouk' ? 1 : 0), `${lang} ${v}: first-move jumps only on the Ouk page`);
        assert((await page.locator(`${tid('learn-quick')} dt`).count()) >= 4, `${lang} ${v}: the 30-second rules`);
        assert((await text(page, tid('learn-count'))).includes(w.count), `${lang} ${v}: the count in ${lang} (${w.count})`);
        assert((await text(page, tid('learn-house'))).includes(w.house), `${lang} ${v}: house rules heading`);

        // the pieces: the Ma (knight) in the middle reaches 8 squares, the Met 4, the Khon 5,
        // the Khun 8, the promoted pawn 4; the Bia moves to one square and captures on two
        const n = await marks(page, 'n');
        assert(n.move.join() === 'b3,b5,c2,c6,e2,e6,f3,f5', `${lang} ${v}: Ma on d4 marks 8 squares (${n.move})`);
        const m = await marks(page, 'm');
        assert(m.move.join() === 'c3,c5,e3,e5', `${lang} ${v}: Met on d4 marks 4 squares (${m.move})`);
        assert((await marks(page, 's')).move.join() === 'c3,c5,d5,e3,e5', `${lang} ${v}: Khon: four diagonals and straight forward`);
        assert((await marks(page, 'k')).move.length === 8, `${lang} ${v}: Khun: 8 squares`);
        assert((await marks(page, 'pm')).move.length === 4, `${lang} ${v}: promoted pawn: 4 squares`);
        const p = await marks(page, 'p');
        assert(p.move.join() === 'd5' && p.capture.join() === 'c5,e5', `${lang} ${v}: Bia: d5, captures c5 e5 (${JSON.stringify(p)})`);
        const r = await marks(page, 'r');
        assert(r.move.length === 9 && r.capture.join() === 'g4' && !r.move.includes('d6'), `${lang} ${v}: Ruea stops at its own piece, captures the first enemy (${JSON.stringify(r)})`);
        const promo = await page.locator(`${tid('diagram-promo')} .lsq.band`).count();
        assert(promo === 8, `${lang} ${v}: the promotion rank is drawn (${promo})`);
        assert((await page.locator(`${tid('diagram-promo')} .lsq.band[data-sq="e6"][data-mark="move"]`).count()) === 1, `${lang} ${v}: the pawn steps onto it`);
        assert((await page.locator(`${tid('diagram-setup')} img`).count()) === 32, `${lang} ${v}: the starting position has 32 pieces`);

        // every diagram is one image with a text that names its marked squares in the page's notation
        const alt = await page.getAttribute(tid('diagram-n'), 'aria-label');
        assert((await page.getAttribute(tid('diagram-n'), 'role')) === 'img', `${lang} ${v}: the diagram is an image`);
        for (const s of ['d4', 'b3', 'b5', 'c2', 'c6', 'e2', 'e6', 'f3', 'f5']) assert(alt.includes(squareIn(lang, s)), `${lang} ${v}: the Ma's text names ${squareIn(lang, s)} (${alt})`);
        assert(alt.includes(w.ma[v]), `${lang} ${v}: the Ma's text names the piece (${alt})`);
        const metAlt = await page.getAttribute(tid('diagram-m'), 'aria-label');
        assert(metAlt.includes(w.met[v]) && metAlt.includes(squareIn(lang, 'c3')), `${lang} ${v}: the Met's text (${metAlt})`);
        const noText = await page.evaluate(() => [...document.querySelectorAll('.diagram-board')].filter((d) => !(d.getAttribute('aria-label') ?? '').trim()).length);
        assert(noText === 0, `${lang} ${v}: every diagram has its text`);
        // the board's edge labels are the notation's
        const edge = await page.evaluate(() => [...document.querySelectorAll('[data-testid="diagram-n"] .co.file')].map((c) => c.textContent).join(''));
        assert(edge === (lang === 'th' ? TH_FILES : lang === 'km' ? KM_FILES : 'abcdefgh'), `${lang} ${v}: file labels (${edge})`);

        if (v === 'ouk') {
          const k = await marks(page, 'leap-k');
          assert(k.leap.join() === 'b2,f2' && k.move.join() === 'c2,d2,e2', `${lang}: the king's first-move jumps d1→b2/f2 (${JSON.stringify(k)})`);
          const q = await marks(page, 'leap-m');
          assert(q.leap.join() === 'e3' && q.move.join() === 'd2,f2', `${lang}: the neang's two-square jump e1→e3 (${JSON.stringify(q)})`);
          const kAlt = await page.getAttribute(tid('diagram-leap-k'), 'aria-label');
          assert(kAlt.includes(squareIn(lang, 'b2')) && kAlt.includes(squareIn(lang, 'f2')), `${lang}: the jumps are in the text (${kAlt})`);
        }

        // the limits table: the six rows of docs/rules.md, in the language's digits
        const rows = await page.locator(tid('limit-row')).evaluateAll((trs) => trs.map((tr) => [tr.dataset.limit, tr.cells[1].textContent.trim(), tr.cells[0].textContent.trim()]));
        assert(rows.map((x) => x[0]).join() === LIMITS.join(), `${lang} ${v}: limits ${rows.map((x) => x[0])}`);
        const shown = rows.map((x) => x[1]).join();
        const want = lang === 'km' ? '៨,១៦,២២,៣២,៤៤,៦៤' : LIMITS.join();
        assert(shown === want, `${lang} ${v}: the limits as shown (${shown})`);
        assert(rows.every((x) => x[2].length > 0), `${lang} ${v}: each row names the material`);
        assert((await page.locator(tid('count-example')).count()) === 2, `${lang} ${v}: two worked examples`);
        const ex = await text(page, tid('learn-count'));
        const start = v === 'ouk' ? (lang === 'km' ? '៥ / ៨' : '5 / 8') : lang === 'km' ? '៤ / ៨' : '4 / 8';
        assert(ex.includes(start), `${lang} ${v}: the example's count starts at ${start}`);

        // house rules from the new-table page, questions
        assert((await page.locator(`${tid('learn-house')} dt`).count()) === 6, `${lang} ${v}: six house rules`);
        assert((await page.locator(`${tid('learn-faq')} details`).count()) >= 6, `${lang} ${v}: the questions`);
        const house = await text(page, tid('learn-house'));
        assert(/45/.test(house) || house.includes('៤៥'), `${lang} ${v}: the 45-day end`);

        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
        await checkNoOverflow(page, `learn ${v} ${lang} 360`);
        await shot(page, `learn-${v}-360-${lang}`);
        if (lang !== 'en' || v === 'ouk') await fullShot(page, `learn-${v}-360-${lang}-full`);
      }
      await page.context().close();
    }
    // and at desktop width, the Thai Ouk page whole
    const d = await newPage(DESKTOP, 'th-TH');
    await openLearn(d, 'ouk');
    await checkNoOverflow(d, 'learn ouk th 1280');
    await fullShot(d, 'learn-ouk-1280-th-full');
    await d.context().close();
  });

  test('learn: the language picker redraws the page in place (squares in the new notation)', async () => {
    const page = await newPage(DESKTOP, 'en-US');
    await openLearn(page, 'makruk');
    for (const [lang, w] of Object.entries(WORDS)) {
      await page.click(`[data-lang="${lang}"]`);
      await page.waitForSelector(`${tid('learn')}[data-lang="${lang}"]`);
      assert((await text(page, tid('learn-title'))) === w.makruk, `${lang}: the title after switching`);
      const alt = await page.getAttribute(tid('diagram-m'), 'aria-label');
      assert(alt.includes(squareIn(lang, 'e5')), `${lang}: the Met's squares in ${lang} (${alt})`);
    }
    assert(page.consoleErrors.length === 0, `no console errors (${page.consoleErrors.join(' | ')})`);
    await page.context().close();
  });

  test('learn: every piece’s lesson can be completed by tapping the marked squares (and with keys)', async () => {
    const page = await newPage(PHONE, 'th-TH');
    await openLearn(page, 'makruk');
    const picks = await page.locator('[data-testid^="lesson-pick-"]').evaluateAll((bs) => bs.map((b) => b.dataset.role));
    assert(picks.join() === 'k,m,s,n,r,p', `a lesson per piece (${picks})`);
    for (const role of picks) {
      await page.locator(tid(`lesson-pick-${role}`)).tap();
      await page.waitForSelector(`${tid('lesson-board')}[data-role="${role}"]`);
      assert((await page.getAttribute(tid('lesson'), 'data-done')) === 'false', `${role}: not done yet`);
      const goals = await page.locator(`${tid('lesson-board')} .lsq.goal`).count();
      assert(goals > 0, `${role}: marked squares (${goals})`);
      let taps = 0;
      while ((await page.getAttribute(tid('lesson'), 'data-done')) !== 'true') {
        const next = page.locator(`${tid('lesson-goal')}[data-visited="false"]`).first();
        await next.tap();
        taps++;
        assert(taps <= 20, `${role}: done within 20 taps`);
        if (taps === 1 && role === 'n') await shot(page, 'learn-lesson-360-th');
      }
      const status = await text(page, tid('lesson-status'));
      assert(status.includes('เก่งมาก'), `${role}: the lesson says well done in Thai (${status})`);
      assert((await page.locator(`${tid('lesson-board')} .lsq.visited`).count()) === taps, `${role}: each tapped square is ticked`);
      if (role === 'p') {
        assert(taps === 3, `the Bia walks d4, d5, d6 (${taps})`);
        assert((await page.getAttribute(`${tid('lesson-board')} .lpiece`, 'data-sq')) === 'd6', 'the Bia stands on d6');
        assert(status.includes('เบี้ยหงาย'), `and became a Bia Ngai (${status})`);
      } else {
        assert(taps === goals, `${role}: one tap per mark (${taps} of ${goals})`);
        // the piece goes back to its square after each move
        await until(`${role}: back on d4`, async () => (await page.getAttribute(`${tid('lesson-board')} .lpiece`, 'data-sq')) === 'd4');
      }
    }
    await shot(page, 'learn-lesson-done-360-th');
    // again: the marks come back
    await page.locator(tid('lesson-again')).tap();
    assert((await page.getAttribute(tid('lesson'), 'data-done')) === 'false', 'Again starts over');
    await checkNoOverflow(page, 'lesson 360');
    await page.context().close();

    // keys: Tab to a marked square, Enter moves there
    const k = await newPage(DESKTOP, 'km-KH');
    await openLearn(k, 'ouk');
    await k.click(tid('lesson-pick-m'));
    await k.waitForSelector(`${tid('lesson-board')}[data-role="m"]`);
    await k.locator(tid('lesson-goal')).first().focus();
    for (let i = 0; i < 4; i++) {
      await k.keyboard.press('Enter');
      if (i < 3) await k.keyboard.press('Tab');
    }
    await until('the Neang lesson done by keys', async () => (await k.getAttribute(tid('lesson'), 'data-done')) === 'true');
    assert((await text(k, tid('lesson-status'))).includes('ពូកែណាស់'), 'well done, in Khmer');
    assert(k.consoleErrors.length === 0, `no console errors (${k.consoleErrors.join(' | ')})`);
    await k.context().close();
  });
}
