// /t/CODE: a tournament's page (joining, your game, the round's pairings, the standings,
// the host's controls, the exports), and /t/CODE/projector: the view for a big screen (the
// code and its QR code, the round's boards, the standings). Both follow the tournament by
// asking for it every few seconds while it runs.
import './tournament.css';
import { h, replace } from '../shared/dom';
import { digits, t } from '../shared/i18n';
import { saveName } from '../shared/api';
import { clockRuleText } from '../shared/clock';
import { nameField } from '../shared/namefield';
import { formatWhen } from '../shared/time';
import { confirmDialog, errorText, link, toast, type Screen } from '../shared/ui';
import { held, hold, takeSeat, tapi, type GameResult, type TGame, type Tournament } from './api';
import { tt } from './text';

const POLL_MS = 3000;

const RESULT_TEXT: Record<GameResult, string> = { '1-0': '1–0', '1/2-1/2': '½–½', '0-1': '0–1' };

function nameOf(tour: Tournament, n: number): string {
  return tour.players[n - 1]?.name ?? '?';
}

function statusText(tour: Tournament): string {
  switch (tour.status) {
    case 'open':
      return tt('statusOpen');
    case 'paused':
      return tt('statusPaused');
    case 'finished':
      return tt('statusFinished');
    default:
      if (tour.format === 'arena') return tour.endsAt ? tt('endsAt', { time: formatWhen(tour.endsAt) }) : '';
      return tour.rounds ? tt('statusRoundOf', { round: tour.round, rounds: tour.rounds }) : tt('statusRound', { round: tour.round });
  }
}

function metaText(tour: Tournament): string {
  const parts = [tt(tour.format), tour.variant === 'ouk' ? t('ouk') : t('makruk'), tt(tour.mode)];
  const clock = clockRuleText(tour.clock);
  if (clock) parts.push(clock);
  return parts.join(' · ');
}

/** The games shown as "the round": a Swiss's or round robin's round now; an arena's games under way. */
function roundGames(tour: Tournament): TGame[] {
  if (tour.format === 'arena') return tour.games.filter((g) => g.result === null);
  return tour.games.filter((g) => g.round === tour.round);
}

function pairingsTable(tour: Tournament, extra?: (g: TGame) => HTMLElement | null): HTMLElement {
  const games = roundGames(tour);
  const bye = tour.byes.find((b) => b.round === tour.round && tour.format !== 'arena');
  return h(
    'section',
    { class: 'tournament-round', 'data-testid': 'pairings' },
    h('h2', null, tour.format === 'arena' ? tt('underWay') : tt('pairings', { round: tour.round })),
    h(
      'table',
      { class: 'tournament-table' },
      h('thead', null, h('tr', null, h('th', null, tt('board')), h('th', null, tt('white')), h('th', null, tt('black')), h('th', null, tt('result')), extra ? h('th', null, tt('decide')) : null)),
      h(
        'tbody',
        null,
        games.map((g) =>
          h(
            'tr',
            { 'data-testid': `board-${g.board}`, dataset: { round: String(g.round) } },
            h('td', null, digits(g.board)),
            h('td', null, nameOf(tour, g.white)),
            h('td', null, nameOf(tour, g.black)),
            h('td', { 'data-testid': 'result' }, g.result ? RESULT_TEXT[g.result] : link(`/p/${g.table}`, { 'data-testid': 'watch' }, tt('watch'))),
            extra ? h('td', null, extra(g)) : null,
          ),
        ),
      ),
    ),
    bye ? h('p', { 'data-testid': 'bye' }, tt('bye', { name: nameOf(tour, bye.player) })) : null,
    tour.waiting.length
      ? h('p', { 'data-testid': 'waiting' }, tt('waiting', { names: tour.waiting.map((n) => nameOf(tour, n)).join(', ') }))
      : null,
  );
}

function standingsTable(tour: Tournament): HTMLElement {
  const swiss = tour.format === 'swiss';
  return h(
    'section',
    { class: 'tournament-standings', 'data-testid': 'standings' },
    h('h2', null, tt('standings')),
    h(
      'table',
      { class: 'tournament-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, tt('place')),
          h('th', null, tt('player')),
          h('th', null, tt('points')),
          swiss ? h('th', null, tt('buchholz')) : null,
          tour.format !== 'arena' ? h('th', null, tt('sb')) : null,
          h('th', null, tt('wins')),
          h('th', null, tt('games')),
        ),
      ),
      h(
        'tbody',
        null,
        tour.standings.map((s) =>
          h(
            'tr',
            { 'data-testid': `standing-${s.player}` },
            h('td', null, digits(s.place)),
            h('td', null, nameOf(tour, s.player), tour.players[s.player - 1]?.dropped ? h('span', { class: 'muted' }, ` (${tt('left')})`) : null),
            h('td', { 'data-testid': 'points' }, digits(s.points)),
            swiss ? h('td', null, digits(s.buchholz)) : null,
            tour.format !== 'arena' ? h('td', null, digits(s.sonnebornBerger)) : null,
            h('td', null, digits(s.wins)),
            h('td', null, digits(s.games)),
          ),
        ),
      ),
    ),
  );
}

/** Follows a tournament: `show` with each new version; stops when left. */
function follow(code: string, show: (tour: Tournament) => void, failed: (e: unknown) => void): () => void {
  let version = -1;
  let timer = 0;
  let gone = false;
  const ask = async () => {
    try {
      const tour = await tapi.get(code);
      if (gone) return;
      if (tour.version !== version || tour.status === 'running') {
        version = tour.version;
        show(tour);
      }
      if (tour.status === 'finished') return;
    } catch (e) {
      if (gone) return;
      failed(e);
    }
    timer = window.setTimeout(ask, document.hidden ? POLL_MS * 4 : POLL_MS);
  };
  void ask();
  return () => {
    gone = true;
    window.clearTimeout(timer);
  };
}

export class TournamentScreen implements Screen {
  el = h('div', { class: 'tournament', 'data-testid': 'tournament' });
  private stop: () => void;
  private tour: Tournament | null = null;
  private shown = '';
  private readonly who = nameField();
  private readonly err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });

  constructor(private readonly code: string) {
    this.el.append(h('p', { class: 'muted', role: 'status' }, tt('loading')));
    this.stop = follow(
      code,
      (tour) => this.show(tour),
      (e) => {
        if (this.tour) return; // a moment's network trouble: the page stays as it was
        replace(this.el, h('h1', null, tt('heading', { code })), h('p', { class: 'error', role: 'alert', 'data-testid': 'not-found' }, (e as { status?: number }).status === 404 ? tt('notFound') : errorText(e)));
      },
    );
  }

  destroy(): void {
    this.stop();
  }

  relabel(): void {
    if (this.tour) this.render(this.tour);
  }

  private show(tour: Tournament): void {
    // Redrawn only when something shown changed (the form being typed in stays).
    const key = JSON.stringify(tour);
    if (key === this.shown) return;
    this.shown = key;
    this.render(tour);
  }

  private async act(action: string, more: { player?: number; round?: number; board?: number; result?: string } = {}, token?: string) {
    const tok = token ?? held(this.code).host;
    if (!tok) return;
    this.err.textContent = '';
    try {
      this.render(await tapi.act(this.code, { token: tok, action, ...more }));
    } catch (e) {
      this.err.textContent = errorText(e);
    }
  }

  private render(tour: Tournament): void {
    this.tour = tour;
    const mine = held(this.code);
    const url = `${location.origin}/t/${tour.code}`;
    const copy = h('button', { type: 'button', class: 'btn', 'data-testid': 'copy-link' }, tt('copyLink'));
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(url);
        toast(tt('copied'));
      } catch {
        /* no clipboard: the link is on the page */
      }
    });
    replace(
      this.el,
      h('h1', null, tour.title || tt('heading', { code: tour.code })),
      h('p', { class: 'muted', 'data-testid': 'tournament-meta' }, metaText(tour)),
      h('p', { class: 'tournament-status', role: 'status', 'data-testid': 'tournament-status' }, statusText(tour)),
      this.err,
      this.you(tour),
      // Joining: before the start, and later in a Swiss or an arena (not for the host then).
      !mine.player && (tour.status === 'open' || (tour.status !== 'finished' && tour.format !== 'roundrobin' && !mine.host))
        ? this.joinForm()
        : null,
      mine.host && tour.status === 'open' ? this.hostPanel(tour) : null,
      tour.status !== 'open' ? pairingsTable(tour, mine.host ? (g) => this.decide(g) : undefined) : null,
      tour.status !== 'open' ? standingsTable(tour) : this.playersList(tour, !!mine.host),
      mine.host && tour.status !== 'open' ? this.hostPanel(tour) : null,
      h(
        'section',
        { class: 'tournament-share' },
        h('p', null, tt('codeIs'), ' ', h('strong', { class: 'code', 'data-testid': 'tournament-code' }, tour.code)),
        h('p', { class: 'muted' }, tt('shareHint')),
        h('img', { class: 'qr', src: tapi.qrUrl(tour.code), alt: tt('scanToJoin'), width: 200, height: 200, 'data-testid': 'qr' }),
        h('div', { class: 'row' }, copy, link(`/t/${tour.code}/projector`, { class: 'btn', 'data-testid': 'projector-link' }, tt('projector'))),
        h(
          'p',
          { class: 'row' },
          h('a', { href: tapi.pgnUrl(tour.code), download: `${tour.code}.pgn`, 'data-testid': 'export-pgn' }, tt('exportPgn')),
          h('a', { href: tapi.csvUrl(tour.code), download: `${tour.code}.csv`, 'data-testid': 'export-csv' }, tt('exportCsv')),
        ),
      ),
    );
  }

  /** The player's own part: who they are, their game (or bye, or wait), leaving and coming back. */
  private you(tour: Tournament): HTMLElement | null {
    const me = held(this.code).player;
    if (!me) return null;
    const dropped = tour.players[me.number - 1]?.dropped;
    const game = tour.games.find((g) => g.result === null && (g.white === me.number || g.black === me.number));
    let now: HTMLElement | null = null;
    const left = dropped ? h('p', { 'data-testid': 'you-left' }, tt('youLeft')) : null;
    if (game) {
      const white = game.white === me.number;
      takeSeat(game, me);
      now = h(
        'div',
        { class: 'card tournament-yours', 'data-testid': 'your-game' },
        h('p', null, tt('yourGame', { board: game.board, colour: white ? tt('white') : tt('black'), name: nameOf(tour, white ? game.black : game.white) })),
        link(`/p/${game.table}`, { class: 'btn primary block', 'data-testid': 'play' }, tt('play')),
      );
    } else if (tour.byes.some((b) => b.player === me.number && b.round === tour.round) && tour.status === 'running') {
      now = h('p', { 'data-testid': 'your-bye' }, tt('youBye'));
    } else if (tour.status === 'running' && !dropped) {
      now = h('p', { 'data-testid': 'you-wait' }, tt('youWait'));
    }
    const leave =
      tour.status === 'finished'
        ? null
        : dropped
          ? h('button', { type: 'button', class: 'btn', 'data-testid': 'come-back', onclick: () => void this.act('back', {}, me.token) }, tt('comeBack'))
          : h(
              'button',
              {
                type: 'button',
                class: 'btn quiet',
                'data-testid': 'leave',
                onclick: async () => {
                  if (await confirmDialog(tt('leaveConfirm'), tt('leave'), 'confirm-leave')) void this.act('leave', {}, me.token);
                },
              },
              tt('leave'),
            );
    return h('section', { class: 'tournament-you', 'data-testid': 'you' }, h('p', null, tt('youAre', { name: me.name, n: me.number })), left, now, leave);
  }

  private joinForm(): HTMLElement {
    const btn = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'join' }, tt('join'));
    const form = h('form', { novalidate: true, class: 'card', 'data-testid': 'join-form' }, h('h2', null, tt('joinTitle')), this.who.field, btn);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = this.who.read(this.err);
      if (!name) return;
      btn.disabled = true;
      this.err.textContent = '';
      try {
        const r = await tapi.join(this.code, name);
        saveName(name);
        hold(this.code, { player: { number: r.you.number, token: r.you.token, name } });
        this.render(r);
      } catch (ex) {
        this.err.textContent = errorText(ex);
        btn.disabled = false;
      }
    });
    return form;
  }

  private hostPanel(tour: Tournament): HTMLElement {
    const button = (text: string, action: string, testid: string, primary = false) =>
      h('button', { type: 'button', class: primary ? 'btn primary' : 'btn', 'data-testid': testid, onclick: () => void this.act(action) }, text);
    const end = h(
      'button',
      {
        type: 'button',
        class: 'btn quiet',
        'data-testid': 'host-end',
        onclick: async () => {
          if (await confirmDialog(tt('endConfirm'), tt('end'), 'confirm-end')) void this.act('end');
        },
      },
      tt('end'),
    );
    return h(
      'section',
      { class: 'card tournament-host', 'data-testid': 'host' },
      h('h2', null, tt('hostTitle')),
      h('p', { class: 'muted' }, tt('hostHint')),
      h(
        'div',
        { class: 'row' },
        tour.status === 'open' ? button(tt('start'), 'start', 'host-start', true) : null,
        tour.status === 'running' ? button(tt('pause'), 'pause', 'host-pause') : null,
        tour.status === 'paused' ? button(tt('resume'), 'resume', 'host-resume', true) : null,
        tour.status !== 'finished' ? end : null,
      ),
      tour.status !== 'open' ? this.playersList(tour, true) : null,
    );
  }

  /** The players, with the host's drop and bring back. */
  private playersList(tour: Tournament, host: boolean): HTMLElement {
    return h(
      'section',
      { class: 'tournament-players', 'data-testid': 'players' },
      h('h2', null, tt('players', { n: tour.players.length })),
      tour.players.length === 0
        ? h('p', { class: 'muted' }, tt('noPlayers'))
        : h(
            'ol',
            null,
            tour.players.map((p) =>
              h(
                'li',
                { 'data-testid': `player-${p.number}` },
                p.name,
                p.dropped ? h('span', { class: 'muted' }, ` (${tt('left')})`) : null,
                host && tour.status !== 'finished'
                  ? h(
                      'button',
                      { type: 'button', class: 'btn small', 'data-testid': p.dropped ? 'bring-back' : 'drop', onclick: () => void this.act(p.dropped ? 'back' : 'drop', { player: p.number }) },
                      p.dropped ? tt('bringBack') : tt('drop'),
                    )
                  : null,
              ),
            ),
          ),
    );
  }

  /** The host's decision of a game under way (a player who never came, say). */
  private decide(g: TGame): HTMLElement | null {
    if (g.result !== null) return null;
    const select = h(
      'select',
      { 'aria-label': tt('decide'), 'data-testid': 'decide-result' },
      h('option', { value: '' }, tt('decide')),
      (Object.keys(RESULT_TEXT) as GameResult[]).map((r) => h('option', { value: r }, RESULT_TEXT[r])),
    );
    select.addEventListener('change', async () => {
      const result = select.value as GameResult | '';
      if (!result) return;
      if (await confirmDialog(tt('decideConfirm', { result: RESULT_TEXT[result], board: g.board }), tt('decide'), 'confirm-decide'))
        void this.act('result', { round: g.round, board: g.board, result });
      else select.value = '';
    });
    return select;
  }
}

/** /t/CODE/projector: for the wall; no controls, large type, the QR code to join. */
export class ProjectorScreen implements Screen {
  el = h('div', { class: 'tournament projector', 'data-testid': 'projector' });
  wide = true;
  private stop: () => void;

  constructor(code: string) {
    this.el.append(h('p', { class: 'muted', role: 'status' }, tt('loading')));
    this.stop = follow(
      code,
      (tour) => this.render(tour),
      (e) => replace(this.el, h('p', { class: 'error', role: 'alert' }, errorText(e))),
    );
  }

  destroy(): void {
    this.stop();
  }

  private render(tour: Tournament): void {
    replace(
      this.el,
      h(
        'header',
        { class: 'projector-head' },
        h('div', null, h('h1', null, tour.title || tt('heading', { code: tour.code })), h('p', { class: 'tournament-status', 'data-testid': 'tournament-status' }, statusText(tour)), h('p', { class: 'muted' }, metaText(tour))),
        h(
          'div',
          { class: 'projector-join' },
          h('img', { class: 'qr', src: tapi.qrUrl(tour.code), alt: tt('scanToJoin'), width: 220, height: 220 }),
          h('p', null, tt('scanToJoin')),
          h('p', { class: 'code', 'data-testid': 'tournament-code' }, tour.code),
          h('p', { class: 'muted' }, tt('joinAt', { url: location.host })),
        ),
      ),
      h(
        'div',
        { class: 'projector-body' },
        tour.status === 'open' ? this.players(tour) : pairingsTable(tour),
        tour.status === 'open' ? null : standingsTable(tour),
      ),
      h('p', null, link(`/t/${tour.code}`, { class: 'btn quiet', 'data-testid': 'back-to-tournament' }, t('back'))),
    );
  }

  private players(tour: Tournament): HTMLElement {
    return h('section', { 'data-testid': 'players' }, h('h2', null, tt('players', { n: tour.players.length })), h('ol', { class: 'projector-players' }, tour.players.map((p) => h('li', null, p.name))));
  }
}
