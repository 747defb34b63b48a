// /local/ID: a game against the CPU played on this device (local.ts keeps it), for when the
// server cannot be reached. The game screen draws it as it draws a table's game; the rules
// (legal moves, the count, the end) come from the core in WebAssembly, and the CPU's moves
// from the same engine at the same level as the server's CPU player (mk_level_move). The
// player's intents become actions in the game's record, as the server would record them.
// A finished game shows the review (the engine, in this browser) and opens in the analysis
// board. "Games on this device" lists them (the home page, the practice screen).
import type { Color, GameRecord, GameState } from '../shared/api';
import { Core, rulesCore, type CoreGame } from '../shared/core';
import { h, replace } from '../shared/dom';
import { t } from '../shared/i18n';
import { localGame, localGames, newLocalGame, saveLocalGame, type LocalGame } from './games';
import { ReviewPanel } from '../analysis/review';
import { fromCore, standIn } from '../game/standin';
import { relative } from '../shared/time';
import { link, navigate, type Screen } from '../shared/ui';
import { GameView } from '../game/game';

/** The least time the CPU seems to think (its low levels answer at once, which feels abrupt). */
const CPU_MIN_MS = 350;

const isMove = (a: string) => !a.includes(':') && a !== 'expire';

export class LocalGameScreen implements Screen {
  el: HTMLElement;
  wide = true;
  private rules = rulesCore();
  private engine = new Core(); // the CPU's own, so that stopping it stops nothing else
  private game: LocalGame | null;
  private view: GameView | null = null;
  private now: CoreGame | null = null;
  private state: GameState | null = null;
  private after: HTMLElement;
  private review: ReviewPanel | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private thinking = false;
  private destroyed = false;

  constructor(id: string) {
    this.game = localGame(id);
    this.after = h('div', { class: 'local-after' });
    this.el = h('div', { class: 'local-game', 'data-testid': 'local-game', 'data-id': id });
    if (!this.game) {
      this.wide = false;
      replace(
        this.el,
        h('h1', null, t('gameRecord')),
        h('p', { class: 'error', 'data-testid': 'local-missing' }, t('localMissing')),
        link('/', { class: 'btn primary block' }, t('home')),
      );
      return;
    }
    this.view = new GameView((m) => this.intent(m), '', { local: true });
    this.view.setOnline(true);
    replace(this.el, this.view.el, this.after);
    this.run(() => this.show());
    // For the browser tests, as the table's screen does (nothing the page does not hold).
    (window as unknown as Record<string, unknown>).__makruk = {
      state: () => this.state,
      seat: () => 0,
      local: () => this.game,
    };
  }

  private myColor(): Color {
    return this.game!.white === 0 ? 'w' : 'b';
  }

  /** One change at a time, in order (a click while the core answers waits its turn). */
  private run(f: () => Promise<unknown>): void {
    this.queue = this.queue.then(f).catch(() => {
      /* the core stopped: the page went away */
    });
  }

  /** The game after `add` (nothing: as it is) onto the board; false when the rules refuse it. */
  private async show(add: string[] = []): Promise<boolean> {
    const game = this.game!;
    const actions = [...game.actions, ...add];
    const g = await this.rules.game(game.variant, game.counting, game.startFen, actions);
    if (this.destroyed) return false;
    if (!g.ok) {
      if (!add.length) replace(this.el, h('p', { class: 'error', 'data-testid': 'local-missing' }, t('localMissing')));
      return false;
    }
    if (add.length) {
      game.actions = actions;
      game.result = g.result;
      game.reason = g.reason;
      game.moves = actions.filter(isMove).length;
      saveLocalGame(game);
    }
    this.now = g;
    const cpu = { name: `CPU ${game.level}`, cpu: game.level };
    const { party, state } = standIn({
      variant: game.variant,
      counting: game.counting,
      startFen: game.startFen,
      white: { name: game.name },
      black: cpu,
      cpu: game.level,
      game: game.number,
      number: game.number,
      moves: actions.filter(isMove),
      ...fromCore(g),
    });
    // (standIn's seats 0 and 1 are the player and the CPU; who has White is the game's)
    party.rules = { ...game.rules, counting: game.counting };
    state.white = game.white;
    state.black = 1 - game.white;
    state.v = actions.length;
    state.canCount = g.canCount;
    state.canStop = g.canStop;
    state.canClaim = g.canClaim;
    state.drawOffer = g.drawOffer;
    this.state = state;
    this.view!.update(party, state, 0);
    this.el.dataset.result = g.result;
    this.el.dataset.actions = String(actions.length);
    this.showAfter();
    if (this.cpuToAct()) void this.cpuTurn();
    return true;
  }

  /** Whether the CPU owes an action: its move, or an answer to the player's draw offer. */
  private cpuToAct(): boolean {
    const g = this.now;
    if (!g || g.result !== '*') return false;
    const me = this.myColor();
    return g.drawOffer === me || (g.turn !== me && g.legal.length > 0);
  }

  private async cpuTurn(): Promise<void> {
    if (this.thinking) return;
    this.thinking = true;
    try {
      while (!this.destroyed && this.cpuToAct()) {
        const game = this.game!;
        const before = game.actions.length;
        const t0 = performance.now();
        const seed = crypto.getRandomValues(new Uint32Array(1))[0];
        const r = await this.engine.level(game.variant, game.counting, game.startFen, game.actions, game.level, seed);
        const wait = CPU_MIN_MS - (performance.now() - t0);
        if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
        if (this.destroyed) return;
        if (game.actions.length !== before) continue; // the player acted meanwhile (resigned, say)
        if (!r.ok || !r.actions.length) return;
        await new Promise<void>((done) =>
          this.run(async () => {
            try {
              if (game.actions.length === before && !(await this.show(r.actions))) {
                // (cannot happen: the same core judged them) at least the move
                const move = r.actions.filter(isMove);
                if (move.length) await this.show(move);
              }
            } finally {
              done();
            }
          }),
        );
      }
    } catch {
      /* stopped: the page went away */
    } finally {
      this.thinking = false;
    }
  }

  /** What the game screen's buttons and board ask for, as actions of the record. */
  private intent(m: Record<string, unknown>): string | null {
    const game = this.game;
    if (!game) return null;
    const me = this.myColor();
    const actions: Record<string, string> = {
      count: `count:${me}`,
      stop: `stop:${me}`,
      claim: `claim:${me}`,
      resign: `resign:${me}`,
      'offer-draw': `offer:${me}`,
      'accept-draw': `accept:${me}`,
      'decline-draw': `decline:${me}`,
    };
    if (m.t === 'rematch') {
      const next = newLocalGame({ ...game, number: game.number + 1 });
      navigate(`/local/${next.id}`);
      return 'local';
    }
    const add = m.t === 'move' && typeof m.move === 'string' ? m.move : actions[String(m.t)];
    if (!add) return null;
    this.run(async () => {
      if (!(await this.show([add])) && !this.destroyed) this.view?.onError({ t: 'error', error: '', code: 'refused' });
    });
    return 'local';
  }

  /** Under the board: where the game is kept; once it is over, the review and the analysis board. */
  private showAfter(): void {
    const game = this.game!;
    const g = this.now!;
    const note = h('p', { class: 'analysis-open muted local-note', 'data-testid': 'local-note' }, t('localNote'));
    if (g.result === '*') {
      if (this.after.dataset.over !== 'false') replace(this.after, note);
      this.after.dataset.over = 'false';
      return;
    }
    if (this.after.dataset.over === 'true') return;
    this.after.dataset.over = 'true';
    const moves = game.actions.filter(isMove);
    const record: GameRecord = {
      id: game.id,
      variant: game.variant,
      counting: game.counting,
      mode: 'live',
      cpu: game.level,
      number: game.number,
      white: game.white === 0 ? game.name : `CPU ${game.level}`,
      black: game.white === 0 ? `CPU ${game.level}` : game.name,
      result: g.result,
      reason: g.reason,
      startFen: game.startFen,
      fen: g.fen,
      turn: g.turn,
      check: g.check,
      moves,
      san: g.san,
      sanThai: g.sanThai,
      actions: game.actions.slice(),
      createdAt: game.createdAt,
      lastMoveAt: game.updatedAt,
      pgn: '',
    };
    const view = this.view!;
    this.review?.destroy();
    this.review = new ReviewPanel(record, (p) => view.showPly(p), (m) => view.setMarks(m), (a) => view.setArrow(a));
    view.onPly = (p) => this.review?.setPly(p);
    const q = new URLSearchParams({ variant: game.variant, fen: game.startFen, moves: moves.join(' ') });
    replace(
      this.after,
      note,
      h('p', { class: 'analysis-open' }, link(`/analysis?${q}`, { class: 'btn', 'data-testid': 'open-analysis' }, t('analysisOpen'))),
      this.review.el,
    );
  }

  relabel(): void {
    this.view?.relabel();
    if (this.game && this.now) {
      delete this.after.dataset.over;
      this.showAfter();
    }
  }

  destroy(): void {
    this.destroyed = true;
    this.engine.stop();
    this.review?.destroy();
    this.view?.destroy();
  }
}

/** "Games on this device": the games against the CPU played here, the latest first (hidden when none). */
export function localGamesList(): HTMLElement {
  const games = localGames();
  const el = h('section', { class: 'my-games local-games', 'data-testid': 'local-games', 'aria-labelledby': 'local-games-h', hidden: !games.length });
  if (!games.length) return el;
  const items = games.slice(0, 20).map((g) => {
    const me: Color = g.white === 0 ? 'w' : 'b';
    const winner = g.result === '1-0' ? 'w' : g.result === '0-1' ? 'b' : null;
    const state =
      g.result === '*'
        ? h('span', { class: 'pill turn', 'data-testid': 'local-in-play' }, t('localInPlay'))
        : h('span', { class: 'pill over', 'data-testid': 'result' }, g.result === '1/2-1/2' ? t('draw') : winner === me ? t('youWon') : t('youLose'));
    const meta = [g.variant === 'ouk' ? t('ouk') : t('makruk'), t('localMoves', { n: g.moves }), relative(g.updatedAt)];
    return h(
      'li',
      null,
      link(
        `/local/${g.id}`,
        { class: 'game-item', 'data-testid': 'local-game-item', 'data-id': g.id, 'data-result': g.result },
        h('span', { class: 'gi-top' }, h('span', { class: 'gi-name' }, `CPU ${g.level}`), state),
        h('span', { class: 'gi-meta' }, meta.join(' · ')),
      ),
    );
  });
  replace(el, h('h2', { id: 'local-games-h' }, t('localGames')), h('ul', { class: 'my-games-list' }, items));
  return el;
}
