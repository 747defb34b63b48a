// /g/ID: a game's own page, read-only, for anyone with the link: the board, the players,
// the moves to step through, the result and the PGN. The game screen draws it, as it
// would for a spectator who came after the game. The link shares with a preview (the
// server puts the picture and the result in the page's tags) and the picture of the
// position shares on its own.
import { api, type GameRecord, type GameState, type Party } from '../shared/api';
import { h, replace } from '../shared/dom';
import { t } from '../shared/i18n';
import { lineShare, link, type Screen } from '../shared/ui';
import { GameView } from '../game/game';
import { ReviewPanel } from './review';
import { standIn } from '../game/standin';

/** The game as the game screen takes it: a table of two, and the game's state now. */
function asTable(g: GameRecord): { party: Party; state: GameState } {
  const player = (name: string) => ({ name, cpu: g.cpu && name.startsWith('CPU') ? g.cpu : undefined });
  return standIn({
    variant: g.variant,
    counting: g.counting,
    startFen: g.startFen,
    white: player(g.white),
    black: player(g.black),
    cpu: g.cpu,
    mode: g.mode,
    game: 0,
    gameId: g.id,
    number: g.number,
    fen: g.fen,
    turn: g.turn,
    check: g.check,
    moves: g.moves,
    san: g.san,
    sanThai: g.sanThai,
    legal: [],
    count: null,
    repetitions: 1,
    result: g.result,
    reason: g.reason,
  });
}

export class GamePageScreen implements Screen {
  el: HTMLElement;
  wide = false;
  private view: GameView | null = null;
  private review: ReviewPanel | null = null;
  private destroyed = false;

  constructor(private id: string) {
    this.el = h('div', { class: 'game-page', 'data-testid': 'game-page', 'data-id': id }, h('p', { class: 'muted' }, t('connecting')));
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      const { game } = await api.game(this.id);
      if (this.destroyed) return;
      const { party, state } = asTable(game);
      const view = (this.view = new GameView(() => null, ''));
      // The review: the engine, in this browser, over every position of the game.
      this.review = new ReviewPanel(game, (p) => view.showPly(p), (m) => view.setMarks(m), (a) => view.setArrow(a));
      view.onPly = (p) => this.review?.setPly(p);
      this.wide = true;
      const q = new URLSearchParams({ variant: game.variant, fen: game.startFen, moves: game.moves.join(' ') });
      replace(
        this.el,
        view.el,
        h(
          'p',
          { class: 'analysis-open game-share' },
          link(`/analysis?${q}`, { class: 'btn', 'data-testid': 'open-analysis' }, t('analysisOpen')),
          ...this.shareButtons(game.id),
        ),
        this.review.el,
      );
      this.el.closest('main')?.classList.toggle('wide', true);
      this.view.update(party, state, null);
      this.view.setOnline(true);
    } catch (e) {
      if (this.destroyed) return;
      const missing = (e as { status?: number }).status === 404;
      replace(
        this.el,
        h('h1', null, t('gameRecord')),
        h('p', { class: 'error', 'data-testid': 'game-missing' }, missing ? t('gameNotFound') : t('networkError')),
        link('/', { class: 'btn primary block' }, t('home')),
      );
    }
  }

  /** The game's link on LINE (its preview shows the board), and the picture of the position to share or keep. */
  private shareButtons(id: string): HTMLElement[] {
    const page = `${location.origin}/g/${id}`;
    const picture = `/api/games/${id}.png`;
    const out: HTMLElement[] = [
      h(
        'a',
        { class: 'btn', 'data-testid': 'game-share-line', href: lineShare(page), target: '_blank', rel: 'noopener noreferrer' },
        t('shareLine'),
      ),
      h('a', { class: 'btn', 'data-testid': 'game-picture', href: picture, download: `makruk-${id}.png` }, t('gamePicture')),
    ];
    const nav = navigator as Navigator & { canShare?: (d: { files: File[] }) => boolean };
    const probe = new File([], 'probe.png', { type: 'image/png' });
    if (nav.share && nav.canShare?.({ files: [probe] })) {
      const b = h('button', { type: 'button', class: 'btn', 'data-testid': 'game-share-picture' }, t('gameSharePicture'));
      b.addEventListener('click', async () => {
        try {
          const blob = await (await fetch(picture)).blob();
          await nav.share!({ files: [new File([blob], `makruk-${id}.png`, { type: 'image/png' })], url: page } as ShareData);
        } catch {
          // cancelled, or the picture could not be had: the download stays
        }
      });
      out.push(b);
    }
    return out;
  }

  relabel(): void {
    this.view?.relabel();
  }

  destroy(): void {
    this.destroyed = true;
    this.review?.destroy();
    this.view?.destroy();
  }
}
