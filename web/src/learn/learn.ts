// "Learn the game": one page per game (Makruk, Ouk Chatrang) with the rules in short, each
// piece's moves drawn on a small board, Ouk Chatrang's first-move jumps, the count with its
// limits and two worked examples, what each house rule does, questions and answers, and a
// short lesson per piece (tap the marked squares until all are visited).
//
// The diagrams are drawn from the rules themselves (reach() below), not by hand, so their
// marks cannot drift from the moves they describe. Each diagram is one image for screen
// readers, with a text that names the piece, its square and every marked square, in the
// notation the player reads elsewhere (notation.ts). Nothing here talks to the server.
import { recommendationsView } from '../community/recommend';
import './learn.css';
import { h, replace, type Child } from '../shared/dom';
import { digits, lang, strings, t } from '../shared/i18n';
import { learnText, type LearnText } from './text';
import type { Variant } from '../shared/api';
import { squareText } from '../shared/notation';
import { pieceSvg, type RoleId, type Side } from '../shared/pieces';
import { link, type Screen } from '../shared/ui';

// ---------------------------------------------------------------- squares and moves

const FILES = 'abcdefgh';
const sqName = (f: number, r: number): string => `${FILES[f]}${r + 1}`;
const fileOf = (s: string): number => s.charCodeAt(0) - 97;
const rankOf = (s: string): number => Number(s[1]) - 1;
const onBoard = (f: number, r: number): boolean => f >= 0 && f < 8 && r >= 0 && r < 8;
/** Squares in reading order: by file, then by rank (a1 a2 … b1 …). */
const bySquare = (a: string, b: string): number => fileOf(a) - fileOf(b) || rankOf(a) - rankOf(b);

export interface Placed {
  sq: string;
  role: RoleId;
  side: Side;
}
export type MarkKind = 'move' | 'capture' | 'leap';
export interface Mark {
  sq: string;
  kind: MarkKind;
}

const KING: [number, number][] = [
  [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1],
];
const DIAGONAL: [number, number][] = [
  [1, 1], [-1, 1], [-1, -1], [1, -1],
];
const STRAIGHT: [number, number][] = [
  [1, 0], [0, 1], [-1, 0], [0, -1],
];
const KNIGHT: [number, number][] = [
  [1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2],
];

/**
 * The squares a piece on `from` reaches among `others` by its ordinary moves (docs/rules.md §1),
 * each marked as a move or a capture. The diagrams need no check rule, so none is applied.
 */
export function reach(role: RoleId, side: Side, from: string, others: Placed[]): Mark[] {
  const at = new Map(others.map((p) => [p.sq, p]));
  const f0 = fileOf(from);
  const r0 = rankOf(from);
  const ahead = side === 'white' ? 1 : -1;
  const out: Mark[] = [];
  const step = (df: number, dr: number, moves = true, captures = true): boolean => {
    const f = f0 + df;
    const r = r0 + dr;
    if (!onBoard(f, r)) return false;
    const s = sqName(f, r);
    const p = at.get(s);
    if (!p) {
      if (moves) out.push({ sq: s, kind: 'move' });
      return true;
    }
    if (p.side !== side && captures) out.push({ sq: s, kind: 'capture' });
    return false;
  };
  switch (role) {
    case 'k':
      for (const [a, b] of KING) step(a, b);
      break;
    case 'm':
    case 'pm':
      for (const [a, b] of DIAGONAL) step(a, b);
      break;
    case 's':
      for (const [a, b] of DIAGONAL) step(a, b);
      step(0, ahead);
      break;
    case 'n':
      for (const [a, b] of KNIGHT) step(a, b);
      break;
    case 'r':
      // slides until the edge or a piece (which it may capture if it is an enemy)
      for (const [a, b] of STRAIGHT) {
        for (let i = 1; i < 8; i++) if (!step(a * i, b * i)) break;
      }
      break;
    case 'p':
      step(0, ahead, true, false);
      step(-1, ahead, false, true);
      step(1, ahead, false, true);
      break;
  }
  return out.sort((x, y) => bySquare(x.sq, y.sq));
}

// ---------------------------------------------------------------- words

/** The page's words, with the piece names of its game filled in. */
class Words {
  readonly tx: LearnText;
  /** Names inside sentences. */
  readonly names: Record<RoleId, string>;
  /** Names in headings and picture texts. */
  readonly heads: Record<RoleId, string>;

  constructor(readonly variant: Variant) {
    const s = strings();
    this.tx = learnText(lang());
    this.heads = s.pieces[variant] as Record<RoleId, string>;
    // Khmer's full name of the promoted pawn says "(promoted pawn)" in brackets; in a
    // sentence the short name reads better.
    this.names = (lang() === 'km' ? s.short[variant] : s.pieces[variant]) as Record<RoleId, string>;
  }

  /** Fills in piece names, button names and [squares]. */
  fill(text: string, vars: Record<string, string | number> = {}): string {
    const all: Record<string, string | number> = {
      ...this.names,
      claim: t('claimDraw'),
      offerDraw: t('offerDraw'),
      drawAccept: t('drawAccept'),
      startCounting: t('startCounting'),
      stopCounting: t('stopCounting'),
      auto: t('countAuto'),
      declare: t('countDeclare'),
      live: t('modeLive'),
      turn: t('modeTurn'),
      ...vars,
    };
    return text
      .replace(/\{(\w+)\}/g, (m, k: string) => (k in all ? String(all[k]) : m))
      .replace(/\[([a-h][1-8])\]/g, (_m, s: string) => squareText(s));
  }

  list(squares: string[]): string {
    return [...squares].sort(bySquare).map((s) => squareText(s)).join(this.tx.sep);
  }

  colour(side: Side): string {
    return side === 'white' ? t('white') : t('black');
  }
}

// ---------------------------------------------------------------- diagrams

const imgCache = new Map<string, string>();
function pieceSrc(role: RoleId, side: Side): string {
  const key = `${role}.${side}`;
  let url = imgCache.get(key);
  if (!url) {
    url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg(role, side))}`;
    imgCache.set(key, url);
  }
  return url;
}

interface DiagramSpec {
  id: string;
  pieces: Placed[];
  /** The square of the piece the diagram is about. */
  focus?: string;
  marks: Mark[];
  /** A rank (1–8) drawn as the promotion rank. */
  band?: number;
}

/** The text that stands for a diagram: the piece, its square, each kind of mark, the rest. */
function diagramText(w: Words, d: DiagramSpec): string {
  const a = w.tx.alt;
  const parts: string[] = [];
  const focus = d.focus ? d.pieces.find((p) => p.sq === d.focus) : undefined;
  if (focus) parts.push(w.fill(a.on, { piece: w.heads[focus.role], sq: squareText(focus.sq) }));
  const of = (kind: MarkKind) => d.marks.filter((m) => m.kind === kind).map((m) => m.sq);
  if (of('move').length) parts.push(w.fill(a.moves, { list: w.list(of('move')) }));
  if (of('capture').length) parts.push(w.fill(a.captures, { list: w.list(of('capture')) }));
  if (of('leap').length) parts.push(w.fill(a.leaps, { list: w.list(of('leap')) }));
  if (d.band) parts.push(w.fill(a.band, { rank: digits(d.band) }));
  for (const side of ['white', 'black'] as Side[]) {
    const rest = d.pieces.filter((p) => p.side === side && p.sq !== d.focus);
    if (!rest.length) continue;
    // one entry per kind of piece: "Bia a3 b3 c3"
    const byRole = new Map<RoleId, string[]>();
    for (const p of rest) byRole.set(p.role, [...(byRole.get(p.role) ?? []), p.sq]);
    const items = [...byRole].map(([role, sqs]) => `${w.heads[role]} ${[...sqs].sort(bySquare).map((s) => squareText(s)).join(' ')}`);
    parts.push(w.fill(a.side, { color: w.colour(side), list: items.join(w.tx.sep) }));
  }
  return parts.join(' ');
}

/** The 64 squares of a small board, rank 8 first; `square` adds what stands on each. */
function grid(cls: string, attrs: Record<string, unknown>, square: (cell: HTMLElement, s: string) => void): HTMLElement {
  const el = h('div', { class: `lboard ${cls}`, ...attrs });
  for (let r = 7; r >= 0; r--) {
    for (let f = 0; f < 8; f++) {
      const s = sqName(f, r);
      const cell = h('div', { class: 'lsq', 'data-sq': s });
      square(cell, s);
      // edge labels as on the game's board: files along the bottom, ranks on the right
      const name = squareText(s);
      if (r === 0) cell.append(h('span', { class: 'co file', 'aria-hidden': 'true' }, name.slice(0, -1)));
      if (f === 7) cell.append(h('span', { class: 'co rank', 'aria-hidden': 'true' }, name.slice(-1)));
      el.append(cell);
    }
  }
  return el;
}

function diagram(w: Words, d: DiagramSpec, caption?: string): HTMLElement {
  const at = new Map(d.pieces.map((p) => [p.sq, p]));
  const marks = new Map(d.marks.map((m) => [m.sq, m.kind]));
  const board = grid('diagram-board', { role: 'img', 'aria-label': diagramText(w, d), 'data-testid': `diagram-${d.id}` }, (cell, s) => {
    if (d.band === rankOf(s) + 1) cell.classList.add('band');
    if (s === d.focus) cell.classList.add('focus');
    const kind = marks.get(s);
    if (kind) cell.dataset.mark = kind;
    const p = at.get(s);
    if (p) cell.prepend(h('img', { class: 'lpc', src: pieceSrc(p.role, p.side), alt: '' }));
  });
  return h('figure', { class: 'diagram' }, board, caption ? h('figcaption', null, caption) : null);
}

/** A diagram of one white piece on d4, alone or with a few others. */
function single(id: string, role: RoleId, at = 'd4', others: Placed[] = []): DiagramSpec {
  return { id, pieces: [{ sq: at, role, side: 'white' }, ...others], focus: at, marks: reach(role, 'white', at, others) };
}

const BACK: RoleId[] = ['r', 'n', 's', 'k', 'm', 's', 'n', 'r'];
const BACK_BLACK: RoleId[] = ['r', 'n', 's', 'm', 'k', 's', 'n', 'r'];
function setupPieces(): Placed[] {
  const out: Placed[] = [];
  for (let f = 0; f < 8; f++) {
    out.push({ sq: sqName(f, 0), role: BACK[f], side: 'white' });
    out.push({ sq: sqName(f, 2), role: 'p', side: 'white' });
    out.push({ sq: sqName(f, 5), role: 'p', side: 'black' });
    out.push({ sq: sqName(f, 7), role: BACK_BLACK[f], side: 'black' });
  }
  return out;
}

/** White's side of the start (back rank and pawns), without the squares in `without`. */
function whiteStart(without: string[], extra: Placed[] = []): Placed[] {
  return [...setupPieces().filter((p) => p.side === 'white' && !without.includes(p.sq)), ...extra];
}

// ---------------------------------------------------------------- the lesson

interface LessonSpec {
  role: RoleId;
  start: string;
  goals: string[];
  /** The pawn walks: it stays where it lands, and only the next square can be chosen. */
  walk?: boolean;
}

const LESSONS: LessonSpec[] = [
  { role: 'k', start: 'd4', goals: reach('k', 'white', 'd4', []).map((m) => m.sq) },
  { role: 'm', start: 'd4', goals: reach('m', 'white', 'd4', []).map((m) => m.sq) },
  { role: 's', start: 'd4', goals: reach('s', 'white', 'd4', []).map((m) => m.sq) },
  { role: 'n', start: 'd4', goals: reach('n', 'white', 'd4', []).map((m) => m.sq) },
  // the Ruea: one move to each far end of its lines
  { role: 'r', start: 'd4', goals: ['a4', 'd1', 'd8', 'h4'] },
  { role: 'p', start: 'd3', goals: ['d4', 'd5', 'd6'], walk: true },
];

const RETURN_MS = 650;

class Lesson {
  el: HTMLElement;
  private spec: LessonSpec = LESSONS[0];
  private pos = '';
  private role: RoleId = 'k';
  private visited = new Set<string>();
  private timer: number | undefined;
  private picks: HTMLButtonElement[] = [];
  private goalText: HTMLElement;
  private status: HTMLElement;
  private boardEl: HTMLElement;
  private piece: HTMLImageElement;
  private again: HTMLButtonElement;

  constructor(private w: Words) {
    const tx = w.tx.lesson;
    this.picks = LESSONS.map((l, i) =>
      h(
        'button',
        { type: 'button', 'data-testid': `lesson-pick-${l.role}`, 'data-role': l.role, 'aria-pressed': 'false', onclick: () => this.pick(i) },
        h('img', { src: pieceSrc(l.role, 'white'), alt: '' }),
        h('span', null, w.heads[l.role]),
      ),
    );
    this.goalText = h('p', { class: 'lesson-goal', 'data-testid': 'lesson-goal-text' });
    this.piece = h('img', { class: 'lpiece', alt: '' });
    this.boardEl = h('div');
    this.status = h('p', { class: 'lesson-status', role: 'status', 'aria-live': 'polite', 'data-testid': 'lesson-status' });
    this.again = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'lesson-again', onclick: () => this.reset() }, tx.again);
    this.el = h(
      'div',
      { class: 'lesson', 'data-testid': 'lesson' },
      h('div', { class: 'lesson-picks', role: 'group', 'aria-label': tx.pick }, this.picks),
      this.goalText,
      h('div', { class: 'lesson-stage' }, this.boardEl),
      this.status,
      h('div', { class: 'row' }, this.again),
    );
    this.pick(0);
  }

  private pick(i: number): void {
    this.spec = LESSONS[i];
    this.picks.forEach((b, j) => b.setAttribute('aria-pressed', String(i === j)));
    this.reset();
  }

  private reset(): void {
    window.clearTimeout(this.timer);
    const w = this.w;
    const sp = this.spec;
    this.visited.clear();
    this.pos = sp.start;
    this.role = sp.role;
    this.goalText.textContent = sp.walk ? w.fill(w.tx.lesson.pawnGoal) : w.fill(w.tx.lesson.goal, { piece: w.names[sp.role] });
    const board = grid(
      'lesson-board',
      { role: 'group', 'aria-label': w.fill(w.tx.lesson.boardLabel, { piece: w.heads[sp.role], sq: squareText(sp.start) }), 'data-testid': 'lesson-board', 'data-role': sp.role },
      (cell, s) => {
        // squares without a goal are only pictures; the goals are buttons (see update)
        if (!sp.goals.includes(s)) cell.setAttribute('aria-hidden', 'true');
        if (sp.walk && s[1] === '6') cell.classList.add('band');
      },
    );
    board.append(this.piece);
    this.boardEl.replaceWith(board);
    this.boardEl = board;
    this.place(false);
    this.update(false);
  }

  /** Puts the piece on its square (sliding there unless `animate` is false). */
  private place(animate: boolean): void {
    const p = this.piece;
    if (!animate) p.classList.add('snap');
    p.src = pieceSrc(this.role, 'white');
    p.style.setProperty('--f', String(fileOf(this.pos)));
    p.style.setProperty('--r', String(7 - rankOf(this.pos)));
    p.dataset.sq = this.pos;
    this.boardEl.dataset.pos = this.pos;
    if (!animate) {
      void p.offsetWidth; // apply the jump before transitions come back
      p.classList.remove('snap');
    }
  }

  private done(): boolean {
    return this.visited.size === this.spec.goals.length;
  }

  /** The goals that can be chosen now. */
  private open(): string[] {
    const sp = this.spec;
    if (!sp.walk) return sp.goals;
    const next = sp.goals[this.visited.size];
    return next ? [next] : [];
  }

  private update(keepFocus: boolean): void {
    const w = this.w;
    const tx = w.tx.lesson;
    const sp = this.spec;
    const open = this.open();
    const focused = keepFocus ? (document.activeElement as HTMLElement | null)?.closest('.lesson-board') : null;
    this.boardEl.querySelectorAll<HTMLElement>('.lsq').forEach((el) => {
      const s = el.dataset.sq!;
      const seen = this.visited.has(s);
      el.classList.toggle('goal', sp.goals.includes(s) && !seen);
      el.classList.toggle('visited', seen);
      let btn = el.querySelector<HTMLButtonElement>('button.lgoal');
      if (!open.includes(s)) {
        btn?.remove();
        return;
      }
      if (!btn) {
        btn = h('button', { type: 'button', class: 'lgoal', 'data-testid': 'lesson-goal', 'data-sq': s, onclick: () => this.moveTo(s) });
        el.prepend(btn);
      }
      btn.dataset.visited = String(seen);
      btn.setAttribute(
        'aria-label',
        seen ? w.fill(tx.squareVisited, { sq: squareText(s) }) : w.fill(tx.squareGoal, { sq: squareText(s), piece: w.names[this.role] }),
      );
    });
    const finished = this.done();
    this.el.dataset.done = String(finished);
    this.status.dataset.done = String(finished);
    if (finished) {
      this.status.textContent = sp.walk ? w.fill(tx.pawnDone) : w.fill(tx.done, { piece: w.names[sp.role] });
    } else {
      this.status.textContent = w.fill(tx.progress, { n: digits(this.visited.size), total: digits(sp.goals.length) });
    }
    // a keyboard player whose square went away (the pawn walked on) goes to the next one
    if (focused && !this.boardEl.contains(document.activeElement)) {
      const next = this.boardEl.querySelector<HTMLButtonElement>('button.lgoal[data-visited="false"]');
      (next ?? this.again).focus();
    }
  }

  private moveTo(s: string): void {
    const sp = this.spec;
    window.clearTimeout(this.timer);
    if (!sp.walk && this.pos !== sp.start) {
      // still on its way back from the last goal: start this move from its own square
      this.pos = sp.start;
      this.place(false);
    }
    this.pos = s;
    this.visited.add(s);
    if (sp.walk && s === sp.goals[sp.goals.length - 1]) this.role = 'pm'; // its sixth rank: a promoted pawn
    this.place(true);
    this.update(true);
    if (!sp.walk) {
      this.timer = window.setTimeout(() => {
        this.pos = sp.start;
        this.place(true);
      }, RETURN_MS);
    }
  }

  destroy(): void {
    window.clearTimeout(this.timer);
  }
}

// ---------------------------------------------------------------- the page

/** The limits of the piece count, in the order of the text's rows (docs/rules.md §5). */
const LIMITS = [8, 16, 22, 32, 44, 64];

const SECTIONS = ['quick', 'pieces', 'leaps', 'lesson', 'ending', 'count', 'house', 'faq'] as const;
type SectionId = (typeof SECTIONS)[number];

function section(id: SectionId, title: string, ...children: Child[]): HTMLElement {
  return h(
    'section',
    { id: `learn-${id}`, class: `learn-section learn-${id}`, 'aria-labelledby': `learn-${id}-title`, 'data-testid': `learn-${id}` },
    h('h2', { id: `learn-${id}-title` }, title),
    ...children,
  );
}

function sectionTitle(w: Words, id: SectionId): string {
  return id === 'house' ? t('houseRules') : w.tx.sec[id];
}

function pieceHeading(w: Words, role: RoleId): string {
  const alias = w.tx.alias[role];
  return alias ? `${w.heads[role]} (${alias})` : w.heads[role];
}

function legend(w: Words, ouk: boolean): HTMLElement {
  const item = (kind: string, text: string) => h('li', null, h('span', { class: `swatch ${kind}`, 'aria-hidden': 'true' }), text);
  const l = w.tx.legend;
  return h(
    'div',
    { class: 'legend' },
    h('h3', null, w.tx.legendTitle),
    h('ul', null, item('move', l.move), item('capture', l.capture), ouk ? item('leap', l.leap) : null, item('band', w.fill(l.band))),
  );
}

function piecesSection(w: Words): HTMLElement {
  const tx = w.tx;
  const card = (role: RoleId, ...figures: HTMLElement[]) =>
    h('article', { class: 'piece-card', 'data-role': role }, h('h3', null, pieceHeading(w, role)), h('p', null, w.fill(tx.piece[role])), figures);
  const black = (sq: string, role: RoleId): Placed => ({ sq, role, side: 'black' });
  const white = (sq: string, role: RoleId): Placed => ({ sq, role, side: 'white' });
  return section(
    'pieces',
    tx.sec.pieces,
    h('p', null, tx.piecesIntro),
    legend(w, w.variant === 'ouk'),
    h('article', { class: 'piece-card setup' }, h('h3', null, tx.setupTitle), diagram(w, { id: 'setup', pieces: setupPieces(), marks: [] }, w.fill(tx.setupCaption))),
    h(
      'div',
      { class: 'piece-grid' },
      card('k', diagram(w, single('k', 'k'))),
      card('m', diagram(w, single('m', 'm'))),
      card('s', diagram(w, single('s', 's'))),
      card('n', diagram(w, single('n', 'n'))),
      card('r', diagram(w, single('r', 'r', 'd4', [white('d6', 'p'), black('g4', 'n')]), tx.rueaCaption)),
      card('p', diagram(w, single('p', 'p', 'd4', [black('c5', 'p'), black('e5', 'n')]), tx.pawnCaption)),
    ),
    h(
      'article',
      { class: 'piece-card', 'data-role': 'pm' },
      h('h3', null, `${tx.promoTitle}: ${pieceHeading(w, 'pm')}`),
      h('p', null, w.fill(tx.piece.pm)),
      h(
        'div',
        { class: 'diagram-row' },
        diagram(w, { ...single('promo', 'p', 'e5'), band: 6 }, w.fill(tx.promoCaption)),
        diagram(w, single('pm', 'pm'), w.heads.pm),
      ),
    ),
  );
}

function leapsSection(w: Words): HTMLElement {
  const tx = w.tx.leaps;
  const king = whiteStart([]);
  const kingSteps = reach('k', 'white', 'd1', king.filter((p) => p.sq !== 'd1'));
  const neang = whiteStart(['e3'], [{ sq: 'e4', role: 'p', side: 'white' }]);
  const neangSteps = reach('m', 'white', 'e1', neang.filter((p) => p.sq !== 'e1'));
  return section(
    'leaps',
    w.tx.sec.leaps,
    h('p', null, tx.intro),
    h(
      'article',
      { class: 'piece-card', 'data-role': 'k' },
      h('h3', null, w.fill(tx.kingTitle)),
      h('p', null, w.fill(tx.king)),
      h('p', null, w.fill(tx.kingLose)),
      diagram(
        w,
        { id: 'leap-k', pieces: king, focus: 'd1', marks: [...kingSteps, { sq: 'b2', kind: 'leap' }, { sq: 'f2', kind: 'leap' }] },
        w.fill(tx.kingCaption),
      ),
    ),
    h(
      'article',
      { class: 'piece-card', 'data-role': 'm' },
      h('h3', null, w.fill(tx.neangTitle)),
      h('p', null, w.fill(tx.neang)),
      diagram(w, { id: 'leap-m', pieces: neang, focus: 'e1', marks: [...neangSteps, { sq: 'e3', kind: 'leap' }] }, w.fill(tx.neangCaption)),
    ),
  );
}

function countSection(w: Words): HTMLElement {
  const c = w.tx.count;
  const v = w.variant;
  const table = h(
    'table',
    { class: 'limits', 'data-testid': 'limits' },
    h('caption', null, c.limitsCaption),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, c.limitsMaterial), h('th', { scope: 'col' }, c.limitsLimit))),
    h(
      'tbody',
      null,
      LIMITS.map((n, i) =>
        h('tr', { 'data-testid': 'limit-row', 'data-limit': String(n) }, h('td', null, w.fill(c.limits[i])), h('td', { class: 'num' }, digits(n))),
      ),
    ),
  );
  return section(
    'count',
    w.tx.sec.count,
    h('p', null, w.fill(c.intro)),
    h('h3', null, c.boardTitle),
    h('p', { 'data-testid': 'count-board' }, w.fill(c.board[v])),
    h('h3', null, w.fill(c.pieceTitle)),
    h('p', { 'data-testid': 'count-piece' }, w.fill(c.piece[v])),
    h('h3', null, c.limitsTitle),
    h('div', { class: 'table-wrap' }, table),
    h('h3', null, c.rulesTitle),
    h('ul', { class: 'learn-list' }, [...c.rules, c.switchRule[v], ...c.after].map((r) => h('li', null, w.fill(r)))),
    h('h3', null, c.examplesTitle),
    c.examples[v].map((ex, i) =>
      h('div', { class: 'example', 'data-testid': 'count-example' }, h('h4', null, `${digits(i + 1)}. ${w.fill(ex.title)}`), h('ol', null, ex.lines.map((l) => h('li', null, w.fill(l))))),
    ),
  );
}

function houseSection(w: Words): HTMLElement {
  const x = w.tx.house;
  const rows: [string, string, string, boolean][] = [
    [t('countStart'), x.countStart, t('countAuto'), false],
    [t('showLegal'), x.showLegal, t('on'), false],
    [t('swapColors'), x.swapColors, t('on'), false],
    [t('labels'), x.labels, t('on'), false],
    [t('tableMode'), x.tableMode, t('modeLive'), true],
    [t('pickTime'), x.pickTime, t('off'), true],
  ];
  return section(
    'house',
    t('houseRules'),
    h('p', null, x.intro),
    h(
      'dl',
      { class: 'house' },
      rows.map(([name, text, def, friends]) => [
        h('dt', null, name),
        h('dd', null, w.fill(text).split('\n').map((line) => h('p', null, line)), h('p', { class: 'muted small' }, w.fill(x.defaultIs, { v: def }), friends ? ` · ${x.friendsOnly}` : '')),
      ]),
    ),
  );
}

function build(variant: Variant, lesson: Lesson, w: Words): Child[] {
  const tx = w.tx;
  const other: Variant = variant === 'ouk' ? 'makruk' : 'ouk';
  const ids = SECTIONS.filter((id) => id !== 'leaps' || variant === 'ouk');
  return [
    h('h1', { 'data-testid': 'learn-title' }, tx.title[variant]),
    h('p', { class: 'lead' }, tx.intro[variant]),
    h('p', { class: 'other-game' }, `${tx.otherGame} `, link(`/learn/${other}`, { 'data-testid': 'learn-other' }, t(other))),
    h(
      'nav',
      { class: 'learn-toc', 'aria-label': tx.contents },
      h('ul', null, ids.map((id) => h('li', null, h('a', { href: `#learn-${id}` }, sectionTitle(w, id))))),
    ),
    section(
      'quick',
      tx.sec.quick,
      h(
        'dl',
        { class: 'quick' },
        tx.quick[variant].map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, w.fill(v)))),
      ),
    ),
    piecesSection(w),
    variant === 'ouk' ? leapsSection(w) : null,
    section('lesson', tx.sec.lesson, h('p', null, tx.lesson.intro), lesson.el),
    section('ending', tx.sec.ending, h('ul', { class: 'learn-list' }, tx.ending[variant].map((e) => h('li', null, w.fill(e))))),
    countSection(w),
    houseSection(w),
    section(
      'faq',
      tx.sec.faq,
      tx.faq[variant].map((f) => h('details', { class: 'faq' }, h('summary', null, w.fill(f.q)), h('p', null, w.fill(f.a)))),
    ),
    recommendationsView(),
    h(
      'section',
      { class: 'learn-ready', 'aria-labelledby': 'learn-ready-title' },
      h('h2', { id: 'learn-ready-title' }, tx.readyTitle),
      h(
        'div',
        { class: 'big-buttons' },
        link('/new', { class: 'big primary', 'data-testid': 'learn-play' }, h('b', null, t('playFriends')), h('small', null, t('playFriendsSub'))),
        link('/practice', { class: 'big', 'data-testid': 'learn-practise' }, h('b', null, t('practiseCpu')), h('small', null, t('practiseCpuSub'))),
      ),
    ),
  ];
}

export function learnScreen(variant: Variant): Screen {
  const el = h('div', { class: 'learn', 'data-testid': 'learn', 'data-variant': variant });
  let lesson: Lesson | null = null;
  const render = () => {
    lesson?.destroy();
    const w = new Words(variant);
    lesson = new Lesson(w);
    replace(el, build(variant, lesson, w));
    el.dataset.lang = lang();
    document.title = `${w.tx.title[variant]} · ${t('appName')}`;
  };
  render();
  return {
    el,
    relabel: render,
    destroy: () => {
      lesson?.destroy();
      document.title = t('appName');
    },
  };
}
