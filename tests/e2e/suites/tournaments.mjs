// Tournaments by code: a host makes one on the web page, six players join it on their phones
// and play a three-round Swiss to the end at its tables (the standings right); a round robin
// of four with a player who leaves and games the host decides; the projector view.
export default function (H) {
  const { test, assert, until, newPage, shot, tid, text, state, PHONE, DESKTOP } = H;

  /** The tournament as the server has it. */
  const tournament = async (code) => (await H.apiJson('GET', `/api/tournaments/${code}`)).json;

  /** The player on `page` resigns their game of the round: from the tournament's page to the table and back. */
  async function resignFromTournament(page, code, table) {
    await page.goto(`${H.BASE}/t/${code}`);
    await page.waitForSelector(`${tid('play')}[href="/p/${table}"]`, { timeout: 15000 * H.SLOW });
    await page.click(tid('play'));
    await page.waitForSelector(tid('resign'));
    await page.click(tid('resign'));
    await page.click(tid('resign-dialog-yes'));
    await until(`the game at ${table} resigned`, async () => (await state(page))?.reason === 'resignation');
    // no rematch at a tournament's table: the way back instead
    assert((await page.locator(tid('rematch')).count()) === 0, 'no rematch button at a tournament\'s table');
    await page.click(tid('back-to-tournament'));
    await page.waitForSelector(tid('you'));
  }

  test('tournament: six players join a Swiss by its code on their phones and play three rounds to the end; the standings are right', async () => {
    const host = await newPage(DESKTOP, 'en-US');
    await host.goto(`${H.BASE}/`);
    await host.click(tid('new-tournament'));
    await host.waitForSelector(tid('tournament-title'));
    await host.fill(tid('tournament-title'), 'Saturday club');
    await host.click(`${tid('rounds')} [data-value="3"]`);
    await host.click(`${tid('clock')} [data-value="none"]`);
    await host.click(tid('create'));
    await host.waitForSelector(tid('host'));
    const code = await text(host, tid('tournament-code'));
    assert(/^[A-Z0-9]{6}$/.test(code), `a code (${code})`);
    assert((await text(host, 'h1')) === 'Saturday club', 'the title');
    assert(await host.locator(tid('qr')).isVisible(), 'the QR code to join');

    // Six players, each on a phone of their own (two in Thai, one in Khmer), join by the code.
    const names = ['Anan', 'Boon', 'Chai', 'Dao', 'Ek', 'Fah'];
    const locales = ['th-TH', 'en-US', 'km-KH', 'en-US', 'th-TH', 'en-US'];
    const players = [];
    for (let i = 0; i < 6; i++) {
      const p = await newPage(PHONE, locales[i]);
      if (i === 0) {
        // the first types the code on the join page, as a table's code
        await p.goto(`${H.BASE}/join`);
        await p.fill(tid('code'), code);
        await p.fill(tid('name'), names[i]);
        await p.click(tid('join'));
      } else {
        await p.goto(`${H.BASE}/t/${code}`);
      }
      await p.waitForSelector(tid('join-form'));
      await p.fill(tid('name'), names[i]);
      await p.click(`${tid('join-form')} ${tid('join')}`);
      await p.waitForSelector(tid('you'));
      players.push(p);
    }
    await shot(players[0], 'tournament-joined-360-th');
    await until('six players on the host\'s page', async () => (await host.locator(`${tid('players')} li`).count()) === 6);
    await host.click(tid('host-start'));
    await until('round 1 on the host\'s page', async () => /Round 1 of 3/.test(await text(host, tid('tournament-status'))));
    await shot(host, 'tournament-round1-1280-en');

    const met = new Set();
    for (let round = 1; round <= 3; round++) {
      const t = await tournament(code);
      assert(t.round === round, `round ${round} (${t.round})`);
      const games = t.games.filter((g) => g.round === round);
      assert(games.length === 3, `three boards in round ${round}`);
      for (const g of games) {
        const pair = [Math.min(g.white, g.black), Math.max(g.white, g.black)].join('-');
        assert(!met.has(pair), `no repeated game (${pair})`);
        met.add(pair);
      }
      // In each game the player who joined later resigns.
      for (const g of games) await resignFromTournament(players[Math.max(g.white, g.black) - 1], code, g.table);
    }
    await until('the tournament over on the host\'s page', async () => /over/.test(await text(host, tid('tournament-status'))));
    const rows = host.locator(`${tid('standings')} tbody tr`);
    assert((await rows.count()) === 6, 'six in the standings');
    assert((await rows.nth(0).getAttribute('data-testid')) === 'standing-1', 'Anan first');
    assert((await text(host, `${tid('standing-1')} ${tid('points')}`)) === '3', 'Anan has 3 points');
    assert((await rows.nth(5).getAttribute('data-testid')) === 'standing-6', 'Fah last');
    assert((await text(host, `${tid('standing-6')} ${tid('points')}`)) === '0', 'Fah has none');
    const t = await tournament(code);
    assert(t.standings.reduce((sum, s) => sum + Number(s.points), 0) === 9, 'nine points in all');
    await shot(host, 'tournament-finished-1280-en');
    // The exports.
    const pgn = await fetch(`${H.BASE}/api/tournaments/${code}/games.pgn`);
    assert(pgn.status === 200 && ((await pgn.text()).match(/\[Event "Saturday club"\]/g) ?? []).length === 9, 'nine games in the PGN');
    const csv = await (await fetch(`${H.BASE}/api/tournaments/${code}/standings.csv`)).text();
    assert(csv.includes('Anan'), 'the standings as CSV');
    // (the join page asked for a table by that code first: its 404 is the one error expected)
    const unexpected = (p) => p.consoleErrors.filter((e) => !(p === players[0] && /status of 404/.test(e)));
    for (const p of [host, ...players]) assert(unexpected(p).length === 0, `no console errors (${unexpected(p).join(' | ')})`);
  });

  test('tournament: a round robin of four; a player leaves, the host decides games; the projector view follows it', async () => {
    const made = await H.apiJson('POST', '/api/tournaments', { format: 'roundrobin', variant: 'ouk', mode: 'live' });
    assert(made.status === 201, `made (${made.status})`);
    const { code, hostToken } = made.json;
    for (const name of ['Sok', 'Dara', 'Vanna']) assert((await H.apiJson('POST', `/api/tournaments/${code}/join`, { name })).status === 201, 'joined');
    const host = await newPage(DESKTOP, 'en-US');
    await host.goto(`${H.BASE}/`);
    await host.evaluate(([c, h]) => localStorage.setItem(`makruk.tournament.${c}`, JSON.stringify({ host: h })), [code, hostToken]);
    const leaver = await newPage(PHONE, 'km-KH');
    await leaver.goto(`${H.BASE}/t/${code}`);
    await leaver.fill(tid('name'), 'Kosal');
    await leaver.click(`${tid('join-form')} ${tid('join')}`);
    await leaver.waitForSelector(tid('you'));
    const wall = await newPage({ viewport: { width: 1920, height: 1080 } }, 'en-US');
    await wall.goto(`${H.BASE}/t/${code}/projector`);
    await until('the projector lists the four', async () => (await wall.locator(`${tid('players')} li`).count()) === 4);
    assert((await text(wall, tid('tournament-code'))) === code, 'the code on the wall');

    await host.goto(`${H.BASE}/t/${code}`);
    await host.click(tid('host-start'));
    await until('round 1 of 3', async () => /Round 1 of 3/.test(await text(host, tid('tournament-status'))));
    await until('the projector shows the boards', async () => (await wall.locator(`${tid('pairings')} tbody tr`).count()) === 2);
    await shot(wall, 'tournament-projector-1920-en');

    // Kosal leaves (the game under way goes on, the later ones are byes for the others).
    await leaver.waitForSelector(tid('your-game'));
    await leaver.click(tid('leave'));
    await leaver.click(tid('confirm-leave-yes'));
    await leaver.waitForSelector(tid('you-left'));
    await shot(leaver, 'tournament-left-360-km');
    await until('the host sees Kosal left', async () => /\(left\)/.test(await text(host, tid('player-4'))));

    // The host decides every game (nobody plays here): White wins each.
    for (let round = 1; round <= 3; round++) {
      await until(`round ${round} on the host's page`, async () => (await tournament(code)).round === round);
      await host.reload();
      await host.waitForSelector(tid('pairings'));
      const games = (await tournament(code)).games.filter((g) => g.round === round);
      for (const g of games) {
        const row = host.locator(`${tid('pairings')} ${tid(`board-${g.board}`)}`);
        await row.locator(tid('decide-result')).selectOption('1-0');
        await host.click(tid('confirm-decide-yes'));
        // (the last of a round pairs the next at once: the page then shows that one)
        await until(`round ${round}, board ${g.board} decided`, async () =>
          (await tournament(code)).games.find((x) => x.round === g.round && x.board === g.board)?.result === '1-0');
        await host.waitForSelector(tid('pairings'));
      }
    }
    const t = await tournament(code);
    assert(t.status === 'finished', `finished (${t.status})`);
    assert(t.byes.length >= 2, `Kosal's later games are byes (${JSON.stringify(t.byes)})`);
    await until('the projector shows the final standings', async () => (await wall.locator(`${tid('standings')} tbody tr`).count()) === 4);
    await until('and says it is over', async () => /over/.test(await text(wall, tid('tournament-status'))));
    await shot(wall, 'tournament-projector-finished-1920-en');
    for (const p of [host, leaver, wall]) assert(p.consoleErrors.length === 0, `no console errors (${p.consoleErrors.join(' | ')})`);
  });
}
