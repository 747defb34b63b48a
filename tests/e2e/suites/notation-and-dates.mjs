// Dates, countdowns and move notation in each interface language.
//
// Khmer dates: Debian's Chromium carries no Khmer date data (Intl.DateTimeFormat
// .supportedLocalesOf(['km']) is empty, and a km-KH browser formats a date as
// "2026 M11 30, Mon 9:00 PM"), so the Khmer page below runs on the real browser, no
// simulation needed; the test prints which case it met. Either way the page must show
// Khmer month and weekday names and Khmer digits.
//
// Notation: the move list is written with the same square names as the board's edge
// labels (read from the board itself), with piece letters that match the piece labels;
// "international" gives Latin SAN and a–h / 1–8 and is kept across a reload.

const KM_MONTHS = ['មករា', 'កុម្ភៈ', 'មីនា', 'មេសា', 'ឧសភា', 'មិថុនា', 'កក្កដា', 'សីហា', 'កញ្ញា', 'តុលា', 'វិច្ឆិកា', 'ធ្នូ'];
const KM_WEEKDAYS = ['អាទិត្យ', 'ចន្ទ', 'អង្គារ', 'ពុធ', 'ព្រហស្បតិ៍', 'សុក្រ', 'សៅរ៍'];
const MIN = 60e3;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

// e4 d5 exd5 Nd7 Nd2: pawn moves, a pawn capture and knight moves for both sides.
const MOVES = ['e3e4', 'd6d5', 'e4d5', 'b8d7', 'b1d2'];
const SAN = ['e4', 'd5', 'exd5', 'Nd7', 'Nd2'];

export default function (H) {
  const { test, assert, until, newPage, shot, tid, kmNum, text, waitV, playMove, apiCreate, apiJoin, apiJson, adoptSeat, PHONE, DESKTOP } = H;

  /** The board's edge labels as drawn: files a→h and ranks 1→8. */
  async function coords(page) {
    return page.evaluate(() => ({
      files: [...document.querySelectorAll('[data-testid="board"] coords.bottom coord')].map((c) => c.textContent),
      ranks: [...document.querySelectorAll('[data-testid="board"] coords.side coord')].map((c) => c.textContent),
    }));
  }

  async function moveList(page) {
    return page.evaluate(() => [...document.querySelectorAll('[data-testid="moves"] button')].map((b) => b.textContent.trim()));
  }

  /** The label drawn on a piece (its ::after content), without the quotes. */
  async function label(page, cls) {
    const c = await page.evaluate((sel) => {
      const el = document.querySelector(`piece.${sel}`);
      return el ? getComputedStyle(el, '::after').content : '';
    }, cls);
    return c.replace(/^"|"$/g, '');
  }

  /**
   * The server's time. An earlier test may have moved the server's clock (45 days ahead, for
   * the expiry test); start times must be in the server's future, and the pages' clocks are
   * set to the same time so that their countdowns read as they would.
   */
  async function serverNow() {
    const r = await apiJson('POST', '/api/test/clock', { advanceMs: 0 });
    return r.status === 200 && typeof r.json?.now === 'number' ? r.json.now : Date.now();
  }

  async function pageAt(opts, locale, now) {
    const p = await newPage(opts, locale);
    if (Math.abs(now - Date.now()) > MIN) await p.clock.install({ time: now });
    return p;
  }

  test('dates: a Khmer page without Khmer date data shows Khmer months, weekdays and digits; countdowns name their units in en/th/km', async () => {
    let now = await serverNow();
    const startsAt = now + 2 * DAY + 3 * HOUR + 30 * MIN;
    const r = await apiCreate({ name: 'Sokha', mode: 'turn', startsAt });
    const bkk = new Date(startsAt + 7 * HOUR); // Asia/Bangkok is UTC+7 all year
    const month = KM_MONTHS[bkk.getUTCMonth()];
    const weekday = KM_WEEKDAYS[bkk.getUTCDay()];

    const k = await pageAt({ ...PHONE, timezoneId: 'Asia/Bangkok' }, 'km-KH', now);
    await adoptSeat(k, r.code, r.token, r.seat, 'Sokha');
    const intl = await k.evaluate(() => ({
      supported: Intl.DateTimeFormat.supportedLocalesOf(['km']),
      sample: new Intl.DateTimeFormat('km', { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' }).format(new Date()),
    }));
    console.log(`     (this Chromium: Khmer date data ${intl.supported.length ? 'present' : 'absent'}; Intl 'km' gives "${intl.sample}")`);
    await k.evaluate(() => localStorage.setItem('makruk.lang', 'km'));
    await k.goto(`${H.BASE}/p/${r.code}`);
    await k.waitForSelector(tid('countdown'));
    const when = await text(k, tid('starts-at-text'));
    assert(when.includes(month), `the Khmer month ${month} (${when})`);
    assert(when.includes(weekday), `the Khmer weekday ${weekday} (${when})`);
    assert(when.includes(kmNum(bkk.getUTCDate())) && when.includes(kmNum(bkk.getUTCFullYear())), `day and year in Khmer digits (${when})`);
    assert(!/[A-Za-z0-9]/.test(when), `no Latin letters or digits in the Khmer date (${when})`);
    const kcd = await text(k, tid('countdown'));
    assert(/^ចាប់ផ្តើមក្នុងរយៈពេល ២ ថ្ងៃ [០-៩]{1,2} ម៉ោង ទៀត$/.test(kcd), `Khmer countdown with its units (${kcd})`);
    await shot(k, 'dates-360-km-invite');
    // My games (home) writes the start date the short way, in Khmer as well
    await k.goto(`${H.BASE}/`);
    const item = k.locator(`${tid('my-game')}[data-code="${r.code}"] .gi-meta`);
    await item.waitFor();
    const meta = (await item.textContent()).trim();
    assert(meta.includes(month) && meta.includes(kmNum(bkk.getUTCDate())) && !/[A-Za-z0-9]/.test(meta), `Khmer date in My games (${meta})`);
    await shot(k, 'dates-360-km-mygames');
    assert(k.consoleErrors.length === 0, `no console errors (${k.consoleErrors.join(' | ')})`);
    await k.context().close();

    // The countdown's three forms, in each language (the language switched on one page).
    const forms = [
      {
        left: 2 * DAY + 3 * HOUR + 30 * MIN,
        en: /^Starts in 2 days 3 h$/,
        th: /^เริ่มในอีก 2 วัน 3 ชั่วโมง$/,
        km: /^ចាប់ផ្តើមក្នុងរយៈពេល ២ ថ្ងៃ ៣ ម៉ោង ទៀត$/,
      },
      {
        left: HOUR + 5 * MIN + 30e3,
        en: /^Starts in 1 h 0[45] min$/,
        th: /^เริ่มในอีก 1 ชั่วโมง 0[45] นาที$/,
        km: /^ចាប់ផ្តើមក្នុងរយៈពេល ១ ម៉ោង ០[៤៥] នាទី ទៀត$/,
      },
      {
        left: 40 * MIN + 50e3,
        en: /^Starts in 40 min \d\d s$/,
        th: /^เริ่มในอีก 40 นาที \d\d วินาที$/,
        km: /^ចាប់ផ្តើមក្នុងរយៈពេល ៤០ នាទី [០-៩]{2} វិនាទី ទៀត$/,
      },
    ];
    for (const [i, f] of forms.entries()) {
      now = await serverNow();
      const t = await apiCreate({ name: 'Dara', mode: 'turn', startsAt: now + f.left });
      const p = await pageAt({ ...DESKTOP, timezoneId: 'Asia/Bangkok' }, 'en-US', now);
      await adoptSeat(p, t.code, t.token, t.seat, 'Dara');
      await p.goto(`${H.BASE}/p/${t.code}`);
      await p.waitForSelector(tid('countdown'));
      for (const l of ['en', 'th', 'km']) {
        if (l !== 'en') await p.click(`[data-lang="${l}"]`);
        await until(`${l} countdown`, async () => f[l].test(await text(p, tid('countdown'))), 4000);
        if (i === 2) await shot(p, `dates-1280-${l}-countdown`);
      }
      assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
      await p.context().close();
    }
  });

  test('notation: Thai move list in the board\'s Thai square names, English list and labels agree, Khmer likewise; international kept across a reload', async () => {
    const r = await apiCreate({ name: 'Somchai', swapColors: false, labels: true });
    const j = await apiJoin(r.code, 'Dara');
    const th = await newPage(PHONE, 'th-TH');
    th.touch = true;
    const en = await newPage(DESKTOP, 'en-US');
    await adoptSeat(th, r.code, r.token, r.seat, 'Somchai');
    await adoptSeat(en, r.code, j.token, j.seat, 'Dara');
    await th.goto(`${H.BASE}/p/${r.code}`);
    await en.goto(`${H.BASE}/p/${r.code}`);
    await th.waitForSelector(tid('start'));
    await th.click(tid('start'));
    for (const p of [th, en]) {
      await p.waitForSelector(tid('game'));
      await waitV(p, 0);
    }
    for (const m of MOVES) await playMove([th, en], m);

    // Thai: the square names are the ones on the board's edges, the pieces Thai letters
    const tc = await coords(th);
    const sq = (c, x) => c.files[x.charCodeAt(0) - 97] + c.ranks[Number(x[1]) - 1];
    const thaiWant = [sq(tc, 'e4'), sq(tc, 'd5'), `${sq(tc, 'e4')}×${sq(tc, 'd5')}`, `ม${sq(tc, 'd7')}`, `ม${sq(tc, 'd2')}`];
    await until('Thai move list', async () => JSON.stringify(await moveList(th)) === JSON.stringify(thaiWant));
    const thText = await text(th, tid('moves'));
    const thKnight = await label(th, 'n-piece');
    assert(!/[A-Za-z0-9]/.test(thText) && thKnight.startsWith('ม'), `no Latin letters or digits in the Thai move list (${thText}), and the Ma's label starts with its letter ม (${thKnight})`);
    await shot(th, 'notation-360-th');

    // English: SAN as sent, and each label begins with the piece's SAN letter
    const enList = await moveList(en);
    for (const [cls, letter] of [['k-piece', 'K'], ['m-piece', 'M'], ['s-piece', 'S'], ['n-piece', 'N'], ['r-piece', 'R']]) {
      const l = await label(en, cls);
      assert(JSON.stringify(enList) === JSON.stringify(SAN) && l.startsWith(`${letter} `), `English moves (${enList.join(' ')}) and the label of ${cls}, which starts with ${letter} (${l})`);
    }
    await shot(en, 'notation-1280-en');

    // Khmer: Khmer board labels, and the move list written with them
    await en.click('[data-lang="km"]');
    await until('Khmer board labels', async () => (await coords(en)).files.join('') === 'កខគឃងចឆជ');
    const kc = await coords(en);
    const kmWant = [sq(kc, 'e4'), sq(kc, 'd5'), `${sq(kc, 'e4')}×${sq(kc, 'd5')}`, `ស${sq(kc, 'd7')}`, `ស${sq(kc, 'd2')}`];
    await until('Khmer move list', async () => JSON.stringify(await moveList(en)) === JSON.stringify(kmWant));
    assert(kc.ranks.join('') === '១២៣៤៥៦៧៨', `Khmer ranks (${kc.ranks.join('')})`);
    const kmKnight = await label(en, 'n-piece');
    const kmText = await text(en, tid('moves'));
    assert(kmKnight.startsWith('ស') && !/[A-Za-z0-9]/.test(kmText), `no Latin in the Khmer move list (${kmText}), and the Ma's label starts with its letter ស (${kmKnight})`);
    await shot(en, 'notation-1280-km');

    // International: Latin SAN and a–h / 1–8, in Thai too, kept after a reload
    await th.click(`${tid('notation')} button[data-value="intl"]`);
    await until('Latin SAN in Thai', async () => JSON.stringify(await moveList(th)) === JSON.stringify(SAN));
    await until('Latin board labels', async () => (await coords(th)).files.join('') === 'abcdefgh');
    assert((await label(th, 'n-piece')).startsWith('N '), `labels carry the Latin letter (${await label(th, 'n-piece')})`);
    await shot(th, 'notation-360-th-international');
    await th.reload();
    await th.waitForSelector(tid('game'));
    await until('still international after a reload', async () => JSON.stringify(await moveList(th)) === JSON.stringify(SAN));
    const rc = await coords(th);
    assert(rc.files.join('') === 'abcdefgh' && rc.ranks.join('') === '12345678', `Latin board labels after reload (${rc.files.join('')} ${rc.ranks.join('')})`);
    const chosen = await th.locator(`${tid('notation')} button[data-value="intl"]`).getAttribute('aria-pressed');
    const status = await text(th, tid('status-main'));
    assert(chosen === 'true' && /[\u0e00-\u0e7f]/.test(status), `the choice shows as chosen (${chosen}), in a page still in Thai (${status})`);
    // and back to the language's own notation
    await th.click(`${tid('notation')} button[data-value="local"]`);
    await until('Thai notation again', async () => JSON.stringify(await moveList(th)) === JSON.stringify(thaiWant));
    await shot(th, 'notation-360-th-back');
    for (const p of [th, en]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await th.context().close();
    await en.context().close();
  });
}
