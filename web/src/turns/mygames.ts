// "My games" on the home screen: every table this browser holds a seat at, from
// POST /api/my-games, tables waiting for this player's move first. Refreshed when the tab
// comes back, when the service worker passes on a push, and now and then while visible.
import { allSeats, api, forgetSeat, tableTokens, type MyGame } from '../shared/api';
import { h, replace } from '../shared/dom';
import { t } from '../shared/i18n';
import { onPushMessage, setAllTurnBadges } from './push';
import { formatDate, relative } from '../shared/time';
import { link } from '../shared/ui';

const POLL_MS = 60000;

function group(g: MyGame): number {
  if (g.status === 'playing' && g.yourTurn) return 0; // waiting for you
  if (g.status === 'playing') return 1; // waiting for the opponent
  if (g.status === 'waiting' || g.status === 'ready') return 2; // not started
  return 3; // finished or expired
}

/** Tables waiting for this player first, then the others in play, then the rest. */
export function sortGames(games: MyGame[]): MyGame[] {
  return games
    .map((g, i) => ({ g, i }))
    .sort((a, b) => group(a.g) - group(b.g) || a.i - b.i) // stable: the server's order within a group
    .map((x) => x.g);
}

function resultText(g: MyGame): string {
  if (g.reason === 'aborted') return t('calledOff');
  if (g.status === 'expired' || g.reason === 'expired') return t(g.mode === 'turn' ? 'endedExpired' : 'endedExpiredLive');
  if (g.result === '1/2-1/2') return t('draw');
  const winner = g.result === '1-0' ? 'w' : g.result === '0-1' ? 'b' : null;
  if (winner && g.color) return winner === g.color ? t('youWon') : t('youLose');
  if (winner) return winner === 'w' ? t('whiteWins') : t('blackWins');
  return t('notStarted');
}

export class MyGamesView {
  el: HTMLElement;
  private listEl: HTMLElement;
  private msgEl: HTMLElement;
  private games: MyGame[] | null = null;
  private busy = false;
  private again = false;
  private fetches = 0;
  private timer: number | undefined;
  private offPush: () => void;
  private destroyed = false;
  private onVisible = () => {
    if (document.visibilityState === 'visible') void this.refresh();
  };
  private onFocus = () => void this.refresh();

  constructor() {
    this.listEl = h('ul', { class: 'my-games-list', 'data-testid': 'my-games-list' });
    this.msgEl = h('p', { class: 'muted my-games-msg', 'data-testid': 'my-games-msg' });
    this.el = h('section', { class: 'my-games', 'data-testid': 'my-games', 'aria-labelledby': 'my-games-h' });
    this.build();
    window.addEventListener('focus', this.onFocus);
    document.addEventListener('visibilitychange', this.onVisible);
    this.offPush = onPushMessage(() => void this.refresh());
    this.timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void this.refresh();
    }, POLL_MS);
    void this.refresh();
  }

  private build(): void {
    replace(this.el, h('h2', { id: 'my-games-h' }, t('myGames')), this.listEl, this.msgEl);
  }

  /** Fetches the list again (one request at a time; a call during one runs once after it). */
  async refresh(): Promise<void> {
    if (this.destroyed) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    const tables = tableTokens();
    if (tables.length === 0) {
      this.el.hidden = true;
      this.games = [];
      setAllTurnBadges([]);
      return;
    }
    this.el.hidden = false;
    if (!this.games) this.msgEl.textContent = t('connecting');
    this.busy = true;
    this.fetches++;
    this.el.dataset.fetches = String(this.fetches);
    try {
      const r = await api.myGames(tables);
      if (this.destroyed) return;
      for (const code of r.unknown ?? []) forgetSeat(code);
      this.games = sortGames(r.games ?? []);
      this.msgEl.textContent = '';
      setAllTurnBadges(this.games.filter((g) => g.yourTurn && g.status === 'playing').map((g) => g.code));
      this.render();
    } catch {
      if (this.destroyed) return;
      this.msgEl.textContent = t('myGamesError');
    } finally {
      this.busy = false;
      this.el.dataset.loaded = String(this.fetches);
      if (this.again && !this.destroyed) {
        this.again = false;
        void this.refresh();
      }
    }
  }

  private render(): void {
    const games = this.games ?? [];
    if (games.length === 0 && allSeats().length === 0) {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = games.length === 0;
    replace(
      this.listEl,
      games.map((g) => this.item(g)),
    );
  }

  private item(g: MyGame): HTMLElement {
    let state: HTMLElement;
    const playing = g.status === 'playing';
    if (playing && g.yourTurn) {
      state = h('span', { class: 'pill turn', 'data-testid': 'your-turn' }, t('yourTurn'));
    } else if (playing) {
      state = h('span', { class: 'pill wait', 'data-testid': 'waiting-for' }, t('waitingFor', { name: g.opponent ?? '…' }));
    } else if (g.status === 'waiting' || g.status === 'ready') {
      state = h('span', { class: 'pill wait', 'data-testid': 'not-started' }, t('notStarted'));
    } else {
      state = h('span', { class: `pill over${g.status === 'expired' ? ' expired' : ''}`, 'data-testid': 'result' }, resultText(g));
    }
    const meta: string[] = [g.variant === 'ouk' ? t('ouk') : t('makruk'), g.mode === 'turn' ? t('turnBased') : t('modeLive')];
    if ((g.status === 'waiting' || g.status === 'ready') && typeof g.startsAt === 'number') {
      meta.push(t('startsAtWhen', { when: formatDate(g.startsAt) }));
    } else if (typeof g.lastMoveAt === 'number' && g.moves > 0) {
      meta.push(t('lastMoveAgo', { ago: relative(g.lastMoveAt) }));
    } else if (typeof g.lastMoveAt === 'number') {
      meta.push(relative(g.lastMoveAt));
    }
    const a = link(
      `/p/${g.code}`,
      {
        class: `game-item${playing && g.yourTurn ? ' your-turn' : ''}`,
        'data-testid': 'my-game',
        'data-code': g.code,
        'data-status': g.status,
        'data-your-turn': String(!!g.yourTurn),
      },
      h(
        'span',
        { class: 'gi-top' },
        h('span', { class: 'gi-name' }, g.opponent ?? t('noOpponentYet')),
        state,
      ),
      h('span', { class: 'gi-meta' }, meta.join(' · ')),
    );
    return h('li', null, a);
  }

  relabel(): void {
    this.build();
    this.render();
  }

  destroy(): void {
    this.destroyed = true;
    window.clearInterval(this.timer);
    window.removeEventListener('focus', this.onFocus);
    document.removeEventListener('visibilitychange', this.onVisible);
    this.offPush();
  }
}
