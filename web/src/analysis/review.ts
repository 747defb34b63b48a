// Game review: the engine (in the browser, core.ts) looks at every position of a game at
// a depth the player picks, and the review shows the evaluation after each move as a graph
// (click to go there), marks the moves that lost ground, and names the better move.
//
// A move's loss is how much the evaluation fell for the side that played it, from the
// position before it to the position after it, both searched to the same depth, in
// centipawns (a pawn is 100), mates counted as ±1000 and evaluations capped at ±1000:
//   inaccuracy "?!" from 50, mistake "?" from 100, blunder "??" from 200.
// A game ended by its last move (a mate, the count) is judged by its result. The board
// shows the better move at each position as an arrow; a band along the graph's bottom
// shows how far a running count has gone towards its limit.
import type { GameRecord } from '../shared/api';
import { Core, type CoreSearch } from '../shared/core';
import { h, replace, setText } from '../shared/dom';
import { t } from '../shared/i18n';
import { moveText } from '../shared/notation';

export const THRESHOLDS = { inaccuracy: 50, mistake: 100, blunder: 200 };
const CAP = 1000;

export type Kind = 'inaccuracy' | 'mistake' | 'blunder';

export function classify(loss: number): Kind | null {
  if (loss >= THRESHOLDS.blunder) return 'blunder';
  if (loss >= THRESHOLDS.mistake) return 'mistake';
  if (loss >= THRESHOLDS.inaccuracy) return 'inaccuracy';
  return null;
}

const SYMBOL: Record<Kind, string> = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/** "cp 35" / "mate -3" for the side to move, as centipawns for White, capped. */
export function whiteCentipawns(score: string, whiteToMove: boolean): number {
  const [kind, n] = score.split(' ');
  let v = kind === 'mate' ? (Number(n) > 0 ? CAP : -CAP) : Math.max(-CAP, Math.min(CAP, Number(n)));
  if (!whiteToMove) v = -v;
  return v;
}

/** Each position's evaluation for White (null: not searched yet) and each move's loss. */
export interface Review {
  evals: (number | null)[];
  /** The better move at each position: as written in the move list, and as "e3e4". */
  best: (string | null)[];
  bestMove: (string | null)[];
  kinds: (Kind | null)[];
  /** The count at each position, as a share of its limit (null: none running). */
  count: (number | null)[];
}

export function judge(evals: (number | null)[], whiteFirst: boolean): (Kind | null)[] {
  const kinds: (Kind | null)[] = [];
  for (let i = 0; i + 1 < evals.length; i++) {
    const before = evals[i];
    const after = evals[i + 1];
    if (before === null || after === null) {
      kinds.push(null);
      continue;
    }
    const white = (i % 2 === 0) === whiteFirst;
    kinds.push(classify(white ? before - after : after - before));
  }
  return kinds;
}

export class ReviewPanel {
  el: HTMLElement;
  private core = new Core();
  private running = false;
  private review: Review;
  private graph: HTMLElement;
  private status: HTMLElement;
  private list: HTMLElement;
  private button: HTMLButtonElement;
  private depth: HTMLSelectElement;
  private current = 0;

  constructor(
    private g: GameRecord,
    private show: (ply: number) => void,
    private mark: (marks: ({ text: string; kind: string } | null)[]) => void,
    private arrow: (move: string | null) => void = () => {},
  ) {
    this.review = ReviewPanel.empty(g.moves.length);
    this.depth = h(
      'select',
      { id: 'review-depth', 'data-testid': 'review-depth' },
      [6, 8, 10, 12, 14].map((d) => h('option', { value: String(d), selected: d === 10 ? true : undefined }, String(d))),
    );
    this.button = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'review-start' }, t('reviewStart'));
    this.button.addEventListener('click', () => (this.running ? this.stop() : void this.run()));
    this.status = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite', 'data-testid': 'review-status' });
    this.graph = h('div', { class: 'review-graph', 'data-testid': 'review-graph' });
    this.list = h('ul', { class: 'review-list', 'data-testid': 'review-list' });
    this.el = h(
      'section',
      { class: 'review', 'data-testid': 'review', 'aria-labelledby': 'review-title' },
      h('h2', { id: 'review-title' }, t('reviewTitle')),
      h('div', { class: 'review-controls' }, h('label', { for: 'review-depth' }, t('reviewDepth')), this.depth, this.button),
      this.status,
      this.graph,
      this.list,
      h('p', { class: 'hint' }, t('reviewThresholds', THRESHOLDS)),
    );
    this.draw();
  }

  private static empty(n: number): Review {
    return {
      evals: Array(n + 1).fill(null),
      best: Array(n + 1).fill(null),
      bestMove: Array(n + 1).fill(null),
      kinds: Array(n).fill(null),
      count: Array(n + 1).fill(null),
    };
  }

  /** The position shown on the board: the graph marks it, and the board shows the better move there. */
  setPly(ply: number): void {
    this.current = ply;
    this.arrow(this.review.bestMove[ply] ?? null);
    this.draw();
  }

  private stop(): void {
    this.core.stop();
  }

  private async run(): Promise<void> {
    const g = this.g;
    const depth = Number(this.depth.value);
    const n = g.moves.length;
    this.running = true;
    this.button.textContent = t('reviewStop');
    this.button.dataset.testid = 'review-stop';
    this.review = ReviewPanel.empty(n);
    const whiteFirst = (g.startFen || '').split(' ')[1] !== 'b';
    // The actions up to each move: positions are searched with the game's history.
    const prefixes: string[][] = [];
    let moves = 0;
    const acts: string[] = [];
    prefixes.push([]);
    for (const a of g.actions) {
      acts.push(a);
      if (!a.includes(':') && a !== 'expire') {
        moves++;
        prefixes[moves] = [...acts];
      }
    }
    const t0 = performance.now();
    let nodes = 0;
    let searching = 0;  // ms spent searching (the rest: the core's other calls, the page)
    try {
      for (let i = 0; i <= n; i++) {
        setText(this.status, t('reviewProgress', { n: i, total: n + 1, depth }));
        const pos = await this.core.game(g.variant, g.counting, g.startFen, prefixes[i] ?? []);
        const whiteToMove = pos.turn === 'w';
        this.review.count[i] = pos.count ? Math.min(1, pos.count.n / Math.max(1, pos.count.limit)) : null;
        if (!pos.legal.length) {
          // No move there: mate (the side to move lost) or stalemate.
          this.review.evals[i] = pos.check ? (whiteToMove ? -CAP : CAP) : 0;
        } else {
          const r: CoreSearch = await this.core.search(g.variant, g.startFen, prefixes[i] ?? [], depth);
          nodes += r.total;
          searching += r.ms;
          this.review.evals[i] = whiteCentipawns(r.score, whiteToMove);
          // The better move, written as the move list writes moves.
          const after = await this.core.game(g.variant, g.counting, g.startFen, [...(prefixes[i] ?? []), r.best]);
          this.review.best[i] = after.ok ? moveText(after.san[after.san.length - 1], r.best) : r.best;
          this.review.bestMove[i] = r.best;
          if (i === this.current) this.arrow(r.best);
        }
        this.review.kinds = judge(this.review.evals, whiteFirst);
        this.draw();
      }
      const s = (performance.now() - t0) / 1000;
      this.el.dataset.nps = String(Math.round((nodes / Math.max(searching, 1)) * 1000));
      this.el.dataset.seconds = s.toFixed(2);
      setText(this.status, t('reviewDone', { depth, seconds: s.toFixed(1) }));
      this.el.dataset.done = 'true';
    } catch {
      setText(this.status, t('reviewStopped'));
    } finally {
      this.running = false;
      this.button.textContent = t('reviewStart');
      this.button.dataset.testid = 'review-start';
    }
  }

  private draw(): void {
    const { evals, kinds, best } = this.review;
    const n = evals.length;
    // The graph: White's evaluation after each move, from +1000 (top) to -1000.
    const W = Math.max(1, n - 1);
    const y = (v: number) => 50 - (v / CAP) * 48;
    const pts = evals.map((v, i) => (v === null ? null : `${(i / W) * 100},${y(v)}`)).filter(Boolean).join(' ');
    const svgNS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(svgNS, 'svg');
    svg.setAttribute('viewBox', '0 0 100 100');
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', t('reviewGraph'));
    const add = (tag: string, attrs: Record<string, string>) => {
      const e = document.createElementNS(svgNS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      svg.appendChild(e);
      return e;
    };
    add('rect', { x: '0', y: '0', width: '100', height: '50', class: 'adv-white' });
    add('rect', { x: '0', y: '50', width: '100', height: '50', class: 'adv-black' });
    // The count's progress, as a band along the bottom: how much of its limit has gone.
    this.review.count.forEach((c, i) => {
      if (c === null) return;
      const h = 4 + c * 16;
      add('rect', { x: String(((i - 0.5) / W) * 100), y: String(100 - h), width: String(100 / W), height: String(h), class: 'count' });
    });
    add('line', {
      x1: String((this.current / W) * 100),
      x2: String((this.current / W) * 100),
      y1: '0',
      y2: '100',
      class: 'cursor',
      'vector-effect': 'non-scaling-stroke',
    });
    if (pts) add('polyline', { points: pts, class: 'eval', 'vector-effect': 'non-scaling-stroke' });
    kinds.forEach((k, i) => {
      const v = evals[i + 1];
      // (a zero-length line with round ends: a round dot whatever the graph's proportions)
      const x = String(((i + 1) / W) * 100);
      if (k && v !== null) add('line', { x1: x, x2: x, y1: String(y(v)), y2: String(y(v)), class: `dot ${k}`, 'vector-effect': 'non-scaling-stroke' });
    });
    svg.addEventListener('click', (e) => {
      const box = svg.getBoundingClientRect();
      const ply = Math.round(((e.clientX - box.left) / Math.max(1, box.width)) * W);
      this.show(Math.max(0, Math.min(n - 1, ply)));
    });
    svg.dataset.points = String(evals.filter((v) => v !== null).length);
    replace(this.graph, svg);
    // The moves that lost ground, with the better one.
    const items: Node[] = [];
    kinds.forEach((k, i) => {
      if (!k) return;
      const no = Math.floor(i / 2) + 1;
      const better = best[i];
      const btn = h(
        'button',
        // The position before the move, with the better move drawn on the board.
        { type: 'button', class: `review-move ${k}`, 'data-testid': `review-${i + 1}`, 'data-kind': k, onclick: () => this.show(i) },
        `${no}${i % 2 === 0 ? '.' : '…'} ${moveText(this.g.san[i], this.g.moves[i])}${SYMBOL[k]} `,
        h('span', { class: 'muted' }, t(`review_${k}`)),
        better ? h('span', { class: 'muted' }, ` · ${t('reviewBetter')} ${better}`) : null,
      );
      items.push(h('li', null, btn));
    });
    replace(this.list, items);
    this.mark(kinds.map((k) => (k ? { text: SYMBOL[k], kind: k } : null)));
  }

  destroy(): void {
    this.core.stop();
  }
}
