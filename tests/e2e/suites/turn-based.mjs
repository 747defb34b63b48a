// Turn-based tables and Web Push: a start time, two players over days with the your-turn
// title and badge, My games, a push shown by the service worker. The start time is
// checked against the server's clock, which must still be the real time: these tests
// run before those that move it (`clock`, see run.mjs).
import path from 'node:path';

export const clock = 'real';

const DAY = 24 * 3600 * 1000;

/** Records navigator.setAppBadge / clearAppBadge calls in window.__badge (what the page asked for). */
async function watchBadge(ctx) {
  await ctx.addInitScript(() => {
    window.__badge = null;
    const set = (n) => {
      window.__badge = n === undefined ? 'flag' : n;
      return Promise.resolve();
    };
    const clear = () => {
      window.__badge = 0;
      return Promise.resolve();
    };
    try {
      Object.defineProperty(Navigator.prototype, 'setAppBadge', { value: set, configurable: true, writable: true });
      Object.defineProperty(Navigator.prototype, 'clearAppBadge', { value: clear, configurable: true, writable: true });
    } catch {
      /* ignore */
    }
  });
}

export default function (H) {
  const { test, testFull, assert, until, sleep, newPage, shot, tid, text, state, myColor, waitV, playMove, apiCreate, apiJson,
    apiJoin, adoptSeat, checkNoOverflow, checkTapTargets, myGame, refreshMyGames, PHONE, DESKTOP, ART } = H;

  test('turn-based: a table with a start time; the invite shows it in local time with a countdown and an .ics link; Start waits for the time', async () => {
    const a = await newPage({ ...PHONE, timezoneId: 'Asia/Bangkok' }, 'en-US');
    a.touch = true;
    await a.goto(`${H.BASE}/new`);
    await a.waitForSelector(tid('mode'));
    assert((await a.locator(`${tid('mode')} button[data-value="live"]`).getAttribute('aria-pressed')) === 'true', 'live by default');
    await a.click(`${tid('mode')} button[data-value="turn"]`);
    await until('the turn-based promise shown', async () => /45 days/.test(await text(a, tid('mode-hint'))));
    assert(await a.locator(tid('starts-at')).isHidden(), 'no start time until asked for');
    await a.click(tid('pick-time'));
    await a.waitForSelector(`${tid('starts-at')}:visible`);
    assert(/Asia\/Bangkok|Bangkok/.test(await text(a, '#starts-at-hint')), `the time zone is named (${await text(a, '#starts-at-hint')})`);
    await a.fill(tid('name'), 'Malee');
    // validation: in the past, then more than a year ahead
    await a.fill(tid('starts-at'), '2020-01-01T10:00');
    await a.click(tid('create'));
    await until('past refused', async () => /future/.test(await text(a, tid('error'))));
    assert(/^\/new$/.test(new URL(a.url()).pathname), 'still on the form');
    const far = new Date(Date.now() + 400 * DAY);
    const ymd = (d, tz) => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
    await a.fill(tid('starts-at'), `${ymd(far, 'Asia/Bangkok')}T10:00`);
    await a.click(tid('create'));
    await until('too far refused', async () => /within a year/.test(await text(a, tid('error'))));
    // two days ahead at 19:00 in Bangkok (UTC+7, no daylight saving)
    const day = ymd(new Date(Date.now() + 2 * DAY), 'Asia/Bangkok');
    const [y, m, d] = day.split('-').map(Number);
    const startsAt = Date.UTC(y, m - 1, d, 12, 0);
    await a.fill(tid('starts-at'), `${day}T19:00`);
    await checkNoOverflow(a, 'new turn-based table 360');
    await checkTapTargets(a, 'new turn-based table 360');
    await shot(a, 'newtable-360-en-turn-time');
    await a.screenshot({ path: path.join(ART, 'newtable-360-en-turn-time-full.png'), fullPage: true });
    await a.click(tid('create'));
    await a.waitForSelector(tid('invite-code'));
    const code = await text(a, tid('invite-code'));
    const party = (await apiJson('GET', `/api/parties/${code}`)).json.party;
    assert(party.mode === 'turn', `mode sent (${party.mode})`);
    assert(party.startsAt === startsAt, `startsAt sent (${party.startsAt} vs ${startsAt})`);
    assert((await text(a, tid('invite-summary'))).includes('Turn-based'), 'Turn-based on the table info');
    const when = await text(a, tid('starts-at-text'));
    const hm = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Bangkok', hour: 'numeric', minute: '2-digit' }).format(new Date(startsAt));
    assert(when.includes(hm) && /Indochina/.test(when), `local time with the zone's name (${when}; ${hm})`);
    const cd1 = await text(a, tid('countdown'));
    assert(/^Starts in (1 day|2 days)( \d{1,2} h)?$/.test(cd1), `a countdown with its units (${cd1})`);
    const left1 = await a.locator(tid('countdown')).getAttribute('data-left');
    await until('the countdown ticks', async () => (await a.locator(tid('countdown')).getAttribute('data-left')) !== left1, 3000);
    const ics = a.locator(tid('ics'));
    assert((await ics.getAttribute('href')) === `/api/parties/${code}/event.ics`, 'the .ics link');
    assert((await ics.getAttribute('download')) !== null, 'the .ics link downloads');
    const ir = await fetch(`${H.BASE}/api/parties/${code}/event.ics`);
    const ibody = await ir.text();
    assert(ir.status === 200 && (ir.headers.get('content-type') ?? '').startsWith('text/calendar'), `text/calendar (${ir.status} ${ir.headers.get('content-type')})`);
    assert(/^DTSTART[;:]/m.test(ibody) && /BEGIN:VEVENT/.test(ibody), `an event with DTSTART (${ibody.slice(0, 300)})`);
    assert(ibody.includes(`${day.replace(/-/g, '')}T120000Z`) || ibody.includes(`${day.replace(/-/g, '')}T190000`), `DTSTART at the time (${ibody.match(/DTSTART.*$/m)?.[0]})`);

    // a friend in another time zone, in Thai
    const b = await newPage({ ...DESKTOP, timezoneId: 'Europe/Paris' }, 'th-TH');
    await b.goto(`${H.BASE}/p/${code}`);
    await b.waitForSelector(tid('join-prompt'));
    assert((await text(b, tid('prompt-starts-at'))).length > 0, 'the start time on the join prompt');
    await b.fill(tid('name'), 'Pierre');
    await b.click(tid('join'));
    await b.waitForSelector(tid('countdown'));
    const bWhen = await text(b, tid('starts-at-text'));
    const parisHm = new Intl.DateTimeFormat('th-TH', { timeZone: 'Europe/Paris', hour: 'numeric', minute: '2-digit' }).format(new Date(startsAt));
    assert(bWhen.includes(parisHm.replace(/\s*น\.$/, '')) && bWhen.includes('เริ่ม'), `Paris time in Thai (${bWhen}; ${parisHm})`);
    assert((await text(b, tid('invite-summary'))).includes('ผลัดกันเดิน'), 'turn-based in Thai');
    await shot(b, 'invite-1280-th-scheduled');

    // the host: Start is there but closed until the time
    await until('Start shown', async () => (await a.locator(tid('start')).count()) === 1);
    assert(await a.locator(tid('start')).isDisabled(), 'Start disabled before the time');
    assert((await text(a, tid('start-locked'))).length > 0, 'says why');
    await checkNoOverflow(a, 'scheduled invite 360');
    await checkTapTargets(a, 'scheduled invite 360');
    await shot(a, 'invite-360-en-scheduled');
    await a.locator(tid('schedule')).screenshot({ path: path.join(ART, 'invite-360-en-schedule-card.png') });
    // a Start that reaches the server too early (this device's clock runs ahead) is refused
    // with `conflict`, and the page says why instead of failing
    const h = await newPage(PHONE, 'en-US');
    await h.clock.install({ time: Date.now() });
    await adoptSeat(h, code, (await a.evaluate((c) => JSON.parse(localStorage.getItem(`makruk.seat.${c}`)).token, code)), 0, 'Malee');
    await h.goto(`${H.BASE}/p/${code}`);
    await h.waitForSelector(tid('start'));
    assert(await h.locator(tid('start')).isDisabled(), 'disabled on the second tab too');
    await h.clock.setSystemTime(startsAt + 60000);
    await until('Start opens when the (device) time comes', async () => !(await h.locator(tid('start')).isDisabled()), 5000);
    await h.click(tid('start'));
    await until('the refusal explained', async () => /Not yet/.test(await text(h, tid('start-refused'))));
    assert((await apiJson('GET', `/api/parties/${code}`)).json.party.status === 'ready', 'not started');
    await shot(h, 'invite-360-en-start-refused');
    await h.context().close();

    // a table a few seconds ahead: Start opens by itself when the time comes, and starts
    const soon = Date.now() + 3000;
    const r = await apiCreate({ name: 'Soon', mode: 'turn', startsAt: soon });
    await apiJoin(r.code, 'Later');
    const c = await newPage(DESKTOP, 'en-US');
    // This device's clock a minute behind while the page opens (however long that takes on a
    // busy machine), then right when the time has come at the server too.
    await c.clock.install({ time: Date.now() - 60000 });
    await adoptSeat(c, r.code, r.token, 0, 'Soon');
    await c.goto(`${H.BASE}/p/${r.code}`);
    await c.waitForSelector(tid('start'));
    assert(await c.locator(tid('start')).isDisabled(), 'Start disabled before the time');
    await until('the start time passes', async () => Date.now() > soon + 200, 8000);
    await c.clock.setSystemTime(Date.now());
    await until('Start enabled at the time', async () => !(await c.locator(tid('start')).isDisabled()), 8000);
    await until('It is time', async () => /It is time/.test(await text(c, tid('countdown'))));
    await c.click(tid('start'));
    await c.waitForSelector(tid('game'));
    await until('turn-based line on the game', async () => /^Turn-based · ends if no move by /.test(await text(c, tid('turn-info'))));
    for (const p of [a, b, c]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await a.context().close();
    await b.context().close();
    await c.context().close();
  });

  // (notifications and Web Push: the whole browser)
  testFull('turn-based: two players; the prompt after the first move; the your-turn title and badge; My games lists both sides and follows the moves', async () => {
    const a = await newPage(DESKTOP, 'en-US');
    const b = await newPage(PHONE, 'th-TH');
    b.touch = true;
    await watchBadge(a.context());
    await watchBadge(b.context());
    await a.goto(`${H.BASE}/new`);
    await a.fill(tid('name'), 'Somchai');
    await a.click(`${tid('mode')} button[data-value="turn"]`);
    await a.click(tid('create'));
    await a.waitForSelector(tid('invite-code'));
    const code = await text(a, tid('invite-code'));
    assert((await apiJson('GET', `/api/parties/${code}`)).json.party.mode === 'turn', 'a turn-based table');
    await b.goto(`${H.BASE}/p/${code}`);
    await b.fill(tid('name'), 'Dara');
    await b.click(tid('join'));
    await b.waitForSelector(tid('invite'));
    await a.waitForSelector(tid('start'));
    await a.click(tid('start'));
    await a.waitForSelector(tid('game'));
    await b.waitForSelector(tid('game'));
    await waitV(a, 0);
    await waitV(b, 0);
    const white = (await myColor(a)) === 'w' ? a : b;
    const black = white === a ? b : a;
    const whiteName = white === a ? 'Somchai' : 'Dara';
    const blackName = white === a ? 'Dara' : 'Somchai';
    assert((await text(a, tid('turn-info'))).startsWith('Turn-based · ends if no move by'), `expiry date shown (${await text(a, tid('turn-info'))})`);
    await until('White: your-turn title', async () => (await white.title()).startsWith('● '));
    assert(!(await black.title()).startsWith('●'), `Black: no marker (${await black.title()})`);
    await until('White: badge 1', async () => (await white.evaluate(() => window.__badge)) === 1);
    assert((await white.locator(tid('notify-prompt')).count()) === 0, 'no prompt before the first move');
    const perm = await white.evaluate(() => Notification.permission);
    assert(perm === 'default', `permission not asked on load (${perm})`);

    await playMove([a, b], 'e3e4', 'click');
    await until('the prompt after the first move', async () => (await white.locator(tid('notify-prompt')).count()) === 1);
    assert((await text(white, tid('notify-prompt'))).includes(white === a ? 'Tell me when it’s my turn' : 'แจ้งฉันเมื่อถึงตาของฉัน'), 'the prompt in words');
    assert((await black.locator(tid('notify-prompt')).count()) === 0, 'not for the player who has not moved');
    await until('Black: your-turn title', async () => (await black.title()).startsWith('● '));
    assert((await black.title()).includes(black === b ? 'ตาของคุณ' : 'Your turn'), `localised title (${await black.title()})`);
    await until('White: marker gone', async () => !(await white.title()).startsWith('●'));
    await until('White: badge cleared', async () => (await white.evaluate(() => window.__badge)) === 0);
    await until('Black: badge 1', async () => (await black.evaluate(() => window.__badge)) === 1);
    await shot(white, white === a ? 'turn-1280-en-notify-prompt' : 'turn-360-th-notify-prompt');
    if (white === b) {
      await checkNoOverflow(b, 'turn-based game 360 with prompt');
      await checkTapTargets(b, 'turn-based game 360 with prompt');
    }

    // My games, from a second tab of each browser
    const aHome = await a.context().newPage();
    aHome.consoleErrors = [];
    aHome.on('pageerror', (e) => aHome.consoleErrors.push(String(e)));
    const bHome = await b.context().newPage();
    bHome.consoleErrors = [];
    bHome.on('pageerror', (e) => bHome.consoleErrors.push(String(e)));
    await aHome.goto(`${H.BASE}/`);
    await bHome.goto(`${H.BASE}/`);
    const wHome = white === a ? aHome : bHome;
    const bkHome = white === a ? bHome : aHome;
    let wi = await myGame(wHome, code);
    let bi = await myGame(bkHome, code);
    assert((await wi.getAttribute('data-your-turn')) === 'false', 'White waits');
    assert((await text(wHome, `${tid('my-game')}[data-code="${code}"] ${tid('waiting-for')}`)).includes(blackName), `waiting for ${blackName}`);
    assert((await bi.getAttribute('data-your-turn')) === 'true', 'Black to move');
    assert((await bkHome.locator(`${tid('my-game')}[data-code="${code}"] ${tid('your-turn')}`).isVisible()), '"Your turn" shown');
    assert((await text(bkHome, `${tid('my-game')}[data-code="${code}"]`)).includes(whiteName), 'the opponent named');
    await shot(aHome, white === a ? 'home-1280-en-mygames-waiting' : 'home-1280-en-mygames-yourturn');
    await bHome.setViewportSize({ width: 360, height: 740 });
    await checkNoOverflow(bHome, 'home with My games 360');
    await checkTapTargets(bHome, 'home with My games 360');
    await shot(bHome, white === b ? 'home-360-th-mygames-waiting' : 'home-360-th-mygames-yourturn');

    // Black answers: both lists follow when the tab comes back into focus
    await playMove([a, b], 'e6e5', 'drag');
    await refreshMyGames(wHome);
    await refreshMyGames(bkHome);
    wi = await myGame(wHome, code);
    bi = await myGame(bkHome, code);
    await until('White to move in My games', async () => (await wi.getAttribute('data-your-turn')) === 'true');
    assert((await bi.getAttribute('data-your-turn')) === 'false', 'Black waits now');
    assert((await text(bkHome, `${tid('my-game')}[data-code="${code}"] ${tid('waiting-for')}`)).includes(whiteName), `waiting for ${whiteName}`);
    await until('Black: marker gone', async () => !(await black.title()).startsWith('●'));
    await until('White: marker back', async () => (await white.title()).startsWith('● '));
    await shot(wHome, white === a ? 'home-1280-en-mygames-yourturn' : 'home-360-th-mygames-yourturn');

    // tapping an entry opens the table
    await bkHome.click(`${tid('my-game')}[data-code="${code}"]`);
    await bkHome.waitForSelector(tid('game'));
    assert(new URL(bkHome.url()).pathname === `/p/${code}`, 'opens /p/CODE');

    // [Turn on]: permission granted, but no push service is reachable here: a short message,
    // and the game goes on
    await white.context().grantPermissions(['notifications'], { origin: H.BASE });
    await white.click(tid('notify-on'));
    const msg = await until('a short message', async () => {
      const n = await white.locator(tid('notify-msg')).count();
      return n ? white.locator(tid('notify-msg')) : null;
    }, 30000);
    const kind = await msg.getAttribute('data-kind');
    console.log(`     (turning push on here: ${kind}; ${await white.locator('.notify-box').getAttribute('data-detail')})`);
    assert(kind === 'fail' || kind === 'ok', 'said how it went');
    await shot(white, white === a ? 'turn-1280-en-notify-failed' : 'turn-360-th-notify-failed');
    await playMove([a, b], 'a3a4', 'click');
    assert((await state(a)).moves.length === 3, 'the game goes on');

    // "Not now" is remembered for that table
    const c = await newPage(PHONE, 'en-US');
    const r = await apiCreate({ name: 'Kanya', mode: 'turn', swapColors: false });
    await apiJoin(r.code, 'Niran');
    await adoptSeat(c, r.code, r.token, 0, 'Kanya');
    await c.goto(`${H.BASE}/p/${r.code}`);
    await c.click(tid('start'));
    await c.waitForSelector(tid('game'));
    await waitV(c, 0);
    await playMove([c], 'e3e4', 'click');
    await c.waitForSelector(tid('notify-prompt'));
    await checkTapTargets(c, 'notify prompt 360');
    await shot(c, 'turn-360-en-notify-prompt');
    await c.click(tid('notify-not-now'));
    await until('prompt gone', async () => (await c.locator(tid('notify-prompt')).count()) === 0);
    await c.reload();
    await c.waitForSelector(tid('game'));
    await waitV(c, 1);
    await sleep(300);
    assert((await c.locator(tid('notify-prompt')).count()) === 0, '"Not now" kept after a reload');
    // Chromium itself logs that incognito contexts (which Playwright's are) have no push
    // service: that is the failure the page handled above, not an error of the page
    const ours = (p) => p.consoleErrors.filter((e) => !/Push API in incognito/.test(e));
    for (const p of [a, b, aHome, bHome, c]) assert(ours(p).length === 0, `no console errors (${ours(p).join(' | ')})`);
    await c.context().close();
    await a.context().close();
    await b.context().close();
  });

  testFull('push: the service worker shows a push delivered through the DevTools protocol, localised, tagged by table, and the page refreshes', async () => {
    const p = await newPage(PHONE, 'km-KH');
    const ctx = p.context();
    const r = await apiCreate({ name: 'Sokha', mode: 'turn' });
    await adoptSeat(p, r.code, r.token, 0, 'Sokha');
    await ctx.grantPermissions(['notifications'], { origin: H.BASE });
    await p.goto(`${H.BASE}/`);
    await myGame(p, r.code);
    const scope = await p.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    assert(scope === `${H.BASE}/`, `the service worker's scope is / (${scope})`);
    const swr = await fetch(`${H.BASE}/sw.js`);
    assert(swr.status === 200 && /javascript/.test(swr.headers.get('content-type') ?? ''), `/sw.js served as JavaScript (${swr.status} ${swr.headers.get('content-type')})`);

    const cdp = await ctx.newCDPSession(p);
    let registrationId = null;
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
      for (const reg of e.registrations) if (reg.scopeURL === `${H.BASE}/` && !reg.isDeleted) registrationId = reg.registrationId;
    });
    await cdp.send('ServiceWorker.enable');
    await until('the registration id', async () => registrationId !== null);
    const fetchesBefore = Number(await p.locator(tid('my-games')).getAttribute('data-fetches'));
    const deliver = (data) => cdp.send('ServiceWorker.deliverPushMessage', { origin: H.BASE, registrationId, data });
    const notes = () =>
      p.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, icon: n.icon, data: n.data })),
      );
    // A push handed to a worker that Chromium is just stopping or starting can be lost on the
    // DevTools side (seen on a loaded machine): until `what` shows, it is delivered again (each
    // repeat replaces the same tag), at most three times. What is checked is what the worker shows.
    const push = async (data, what, shown) => {
      for (let attempt = 1; ; attempt++) {
        await deliver(data);
        try {
          return await until(what, shown, attempt < 3 ? 4000 : 10000);
        } catch (e) {
          if (attempt >= 3) throw new Error(`${e.message}; notifications: ${JSON.stringify(await notes())}`);
        }
      }
    };

    // "your turn", in Thai (the payload's language, not the page's)
    const n1 = await push(JSON.stringify({ kind: 'turn', code: r.code, url: `/p/${r.code}`, opponent: 'Somchai', move: 'e4', result: null, reason: null, lang: 'th' }),
      'the notification', async () => (await notes()).find((n) => n.tag === r.code));
    assert(n1.title === 'ถึงตาของคุณ — Somchai เดิน e4', `Thai title (${n1.title})`);
    assert(n1.body.includes(r.code), `body names the table (${n1.body})`);
    assert(n1.icon.endsWith('/favicon.svg') && n1.data?.url === `/p/${r.code}`, `icon and url (${n1.icon} ${JSON.stringify(n1.data)})`);
    await until('the page refreshed My games', async () => Number(await p.locator(tid('my-games')).getAttribute('data-fetches')) > fetchesBefore);

    // a newer one about the same table replaces it (same tag): game over, in English
    const n2 = await push(JSON.stringify({ kind: 'over', code: r.code, url: `/p/${r.code}`, opponent: 'Somchai', move: null, result: '0-1', reason: 'checkmate', lang: 'en' }),
      'the replacement', async () => {
        const list = (await notes()).filter((n) => n.tag === r.code);
        return list.length === 1 && list[0].title.startsWith('Game over') ? list[0] : null;
      });
    assert(n2.title === 'Game over — Black wins' && n2.body.includes('by checkmate'), `English game over (${n2.title} / ${n2.body})`);

    // the 45-day end, in Khmer, for another table
    const n3 = await push(JSON.stringify({ kind: 'expired', code: 'K7QX2M', url: '/p/K7QX2M', opponent: 'Dara', move: null, result: '1/2-1/2', reason: 'expired', lang: 'km' }),
      'the expiry notification', async () => (await notes()).find((n) => n.tag === 'K7QX2M'));
    assert(n3.title === 'តុបានបញ្ចប់ ដោយសារគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ', `Khmer expiry title (${n3.title})`);

    // not JSON, and empty: the generic notification, never a failure
    await push('not json {', 'generic notification', async () => (await notes()).some((n) => /something happened|មានអ្វីមួយកើតឡើង/.test(n.title)));
    await deliver('');
    await sleep(300);
    const all = await notes();
    assert(all.length >= 3, `notifications kept (${all.length})`);
    console.log(`     (notifications: ${all.map((n) => `${n.tag || '-'}: ${n.title}`).join(' | ')})`);
    assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
    await cdp.detach();
    await p.context().close();
  });
}
