// Reconnecting after a long outage: the server stops for long enough that a doubling backoff
// would have grown to many seconds, then comes back. Both players must be back within a couple
// of seconds; while the connection is down no presence dot may claim a player is online; and
// on a phone the offline banner must lie over neither player's bar nor the board.

const GREEN = 'rgb(47, 168, 79)'; // .dot.on

/** Boxes of the banner, both player bars and the board, in the page's viewport. */
async function boxes(page, tid) {
  return page.evaluate((ids) => {
    const out = {};
    for (const [k, sel] of Object.entries(ids)) {
      const r = document.querySelector(sel)?.getBoundingClientRect();
      out[k] = r ? { x: r.x, y: r.y, w: r.width, h: r.height } : null;
    }
    out.vw = window.innerWidth;
    out.vh = window.innerHeight;
    return out;
  }, { banner: tid('conn'), top: tid('bar-top'), bottom: tid('bar-bottom'), board: tid('board') });
}

function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** What each player bar's presence dot says, and its colour. */
async function dots(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.pbar .dot')].map((d) => ({
      bar: d.closest('.pbar').dataset.testid,
      presence: d.dataset.presence ?? (d.classList.contains('on') ? 'on' : 'off'),
      colour: getComputedStyle(d).backgroundColor,
    })),
  );
}

export default function (H) {
  const { test, assert, until, newPage, shot, tid, state, waitV, playMove, apiCreate, apiJoin, adoptSeat, startServer, stopServer, sleep, PHONE, DESKTOP } = H;

  test('reconnect: after 16 s without the server both pages are back within seconds; no green dot while offline; the phone banner covers no bar or the board', async () => {
    const r = await apiCreate({ name: 'Somchai', swapColors: false });
    const j = await apiJoin(r.code, 'Dara');
    const phone = await newPage(PHONE, 'en-US');
    phone.touch = true;
    const desk = await newPage(DESKTOP, 'en-US');
    await adoptSeat(phone, r.code, r.token, r.seat, 'Somchai');
    await adoptSeat(desk, r.code, j.token, j.seat, 'Dara');
    await phone.goto(`${H.BASE}/p/${r.code}`);
    await desk.goto(`${H.BASE}/p/${r.code}`);
    await phone.waitForSelector(tid('invite'));
    await desk.waitForSelector(tid('invite'));
    await phone.click(tid('start'));
    for (const p of [phone, desk]) {
      await p.waitForSelector(tid('game'));
      await waitV(p, 0);
    }
    const pages = [phone, desk];
    const allOn = async (p) => {
      const d = await dots(p);
      return d.length === 2 && d.every((x) => x.presence === 'on');
    };
    for (const p of pages) await until('both players shown online', () => allOn(p));
    for (const p of pages) assert((await p.evaluate(() => document.visibilityState)) === 'visible', 'the page is in view');
    await playMove(pages, 'b1d2', 'click');

    // The server goes away for a while.
    const faults = [];
    await stopServer();
    for (const p of pages) await until('offline banner', async () => (await p.locator(`${tid('conn')}.show`).count()) === 1, 5000);
    const downAt = Date.now();
    await sleep(400); // the banner's transition
    for (const [p, label] of [[phone, '360'], [desk, '1280']]) {
      const d = await dots(p);
      if (d.length !== 2) faults.push(`${label}: two presence dots (${d.length})`);
      for (const x of d) {
        if (x.presence === 'on' || x.colour === GREEN) faults.push(`${label}: ${x.bar} still claims online while we are offline (${x.presence}, ${x.colour})`);
      }
      const b = await boxes(p, tid);
      if (!b.banner || b.banner.h < 16) faults.push(`${label}: the banner shows (${JSON.stringify(b.banner)})`);
      else if (b.banner.y < 0 || b.banner.y + b.banner.h > b.vh + 0.5 || b.banner.x < 0 || b.banner.x + b.banner.w > b.vw + 0.5) faults.push(`${label}: the banner lies inside the screen (${JSON.stringify(b.banner)})`);
      for (const k of ['top', 'bottom', 'board']) {
        if (b.banner && b[k] && overlaps(b.banner, b[k])) faults.push(`${label}: the banner (${JSON.stringify(b.banner)}) covers ${k} (${JSON.stringify(b[k])})`);
      }
    }
    await shot(phone, 'reconnect-360-en-offline');
    await shot(desk, 'reconnect-1280-en-offline');
    // Long enough that a doubling backoff has grown past ten seconds.
    await sleep(Math.max(0, 16000 - (Date.now() - downAt)));

    const spawnAt = Date.now();
    await startServer();
    const upAt = Date.now(); // the server answers from here (to within the harness's 100 ms poll)
    const back = await Promise.all(
      pages.map((p) =>
        until('back online', async () => (await p.locator(`${tid('conn')}[data-state="online"]`).count()) === 1 && (await p.locator(`${tid('conn')}.show`).count()) === 0, 40000).then(() => Date.now() - upAt),
      ),
    );
    const worst = Math.max(...back);
    console.log(
      `     (back online ${back.map((ms) => (ms / 1000).toFixed(2)).join(' s and ')} s after the server answered again` +
        ` (it took ${((upAt - spawnAt) / 1000).toFixed(2)} s to start); down ${((upAt - downAt) / 1000).toFixed(1)} s)`,
    );
    if (worst > 5000) faults.push(`both pages back online within 5 s of the server returning (${(worst / 1000).toFixed(2)} s)`);

    // Presence comes back from the server's next party message.
    for (const p of pages) {
      await until('both players shown online again', () => allOn(p), 5000).catch(async () => faults.push(`presence restored (${JSON.stringify(await dots(p))})`));
    }
    assert(faults.length === 0, faults.join('; '));
    await shot(phone, 'reconnect-360-en-back');

    // The game goes on: the position came back, and both sides can move.
    const s = await state(desk);
    assert(s.moves.length === 1 && s.moves[0].startsWith('b1d2'), `the move before the outage kept (${s.moves.join(' ')})`);
    await playMove(pages, 'b8d7', 'click');
    await playMove(pages, 'd2c4', 'click');
    await shot(desk, 'reconnect-1280-en-back');
    await phone.context().close();
    await desk.context().close();
  });
}
