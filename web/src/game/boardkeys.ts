// Playing without a mouse: the board as a grid of 64 focusable squares laid over the
// drawn board (arrow keys move, Enter or Space picks a piece up and puts it down,
// Escape cancels), a field to type a move in SAN, coordinates or Thai or Khmer notation
// (read by the rules core, WebAssembly), and a live region that reads out what happens
// on the board in the chosen language. Like the rest of the client it decides no rule: a
// move is only ever one the core found among the legal moves.
import type { GameState } from '../shared/api';
import { h, replace, setText } from '../shared/dom';
import { strings, t } from '../shared/i18n';
import { rulesCore } from '../shared/core';
import { moveText, squareText } from '../shared/notation';
import { parsePlacement } from '../shared/placement';

type Color = 'w' | 'b';
type PieceKey = 'k' | 'm' | 's' | 'n' | 'r' | 'p' | 'pm';

const FILES = 'abcdefgh';

/** What the board shows now, as the game screen computed it. */
export interface BoardView {
  fen: string;
  orientation: 'white' | 'black';
  variant: string;
  me: Color | null;
  /** The player may move now (their turn, the latest position, no move in flight). */
  canMove: boolean;
  /** The latest position is shown (not an earlier one from the move list). */
  live: boolean;
  over: boolean;
  /** The legal moves in coordinates (`e3e4`, `d5d6m`), empty unless canMove. */
  legal: string[];
}

export interface BoardHooks {
  /** The square the board has picked up (by mouse, touch or keys), if any. */
  selected(): string | null;
  pick(square: string): void;
  cancel(): void;
  play(from: string, to: string): void;
}

/** A square's name as the board's edges show it now ("c3", "ค๓", "គ៣"). */
export function squareName(sq: string): string {
  return squareText(sq);
}

function pieceKey(fenPiece: string): PieceKey {
  if (fenPiece.endsWith('~')) return 'pm';
  return fenPiece[0].toLowerCase() as PieceKey;
}

function colorOf(fenPiece: string): Color {
  return fenPiece[0] === fenPiece[0].toUpperCase() ? 'w' : 'b';
}

function colorWord(c: Color): string {
  return c === 'w' ? t('white') : t('black');
}

function pieceName(variant: string, fenPiece: string): string {
  return strings().pieces[variant === 'ouk' ? 'ouk' : 'makruk'][pieceKey(fenPiece)];
}

/** "White Ma", "ม้าขาว", "សេះខាងស". */
export function describePiece(variant: string, fenPiece: string): string {
  return t('pieceColored', { color: colorWord(colorOf(fenPiece)), piece: pieceName(variant, fenPiece) });
}

/** One move in words: who, which piece, from where to where, what it took, check. */
export function describeMove(variant: string, fenBefore: string, fenAfter: string, move: string, check: boolean, mate: boolean): string {
  const before = parsePlacement(fenBefore);
  const after = parsePlacement(fenAfter);
  const from = move.slice(0, 2);
  const to = move.slice(2, 4);
  const mover = before.get(from);
  if (!mover) return `${squareName(from)} ${squareName(to)}`;
  let s = t('moveSay', { color: colorWord(colorOf(mover)), piece: pieceName(variant, mover), from: squareName(from), to: squareName(to) });
  const taken = before.get(to);
  if (taken) s += t('captureSay', { piece: pieceName(variant, taken) });
  const now = after.get(to);
  if (now && pieceKey(now) !== pieceKey(mover)) s += t('promoteSay', { piece: pieceName(variant, now) });
  if (mate) return t('markSay', { move: s, mark: t('mateSay') });
  if (check) return t('markSay', { move: s, mark: t('check') });
  return s;
}

// ---------------------------------------------------------------- the keyboard board

export class BoardKeys {
  /** The grid of squares, laid over the drawn board. */
  readonly grid: HTMLElement;
  /** Where moves and answers to keys are read out. */
  readonly log: HTMLElement;
  /** What the keys do, read with the grid (kept outside it: a grid holds only rows). */
  readonly help: HTMLElement;
  /** "Type a move". */
  readonly form: HTMLFormElement;
  private cells: HTMLElement[] = []; // in visual order, row by row from the top
  private cellKey: string[] = [];
  private labels: string[] = [];
  private cursor = '';
  private view: BoardView | null = null;
  private input: HTMLInputElement;
  private typedLabel: HTMLLabelElement;
  private typedBtn: HTMLButtonElement;
  private typedMsg: HTMLElement;

  constructor(
    private hooks: BoardHooks,
    id: string,
  ) {
    this.help = h('div', { class: 'visually-hidden', id: `${id}-help` });
    this.grid = h('div', {
      class: 'kb-grid',
      role: 'grid',
      'aria-describedby': `${id}-help`,
      'data-testid': 'board-grid',
    });
    for (let r = 0; r < 8; r++) {
      const row = h('div', { class: 'kb-row', role: 'row', style: { top: `${r * 12.5}%` } });
      for (let c = 0; c < 8; c++) {
        const cell = h('div', { class: 'kb-cell', role: 'gridcell', tabindex: '-1' });
        this.cells.push(cell);
        this.cellKey.push('');
        this.labels.push('');
        row.appendChild(cell);
      }
      this.grid.appendChild(row);
    }
    this.grid.addEventListener('keydown', (e) => this.onKey(e));
    this.grid.addEventListener('focusin', (e) => {
      const i = this.cells.indexOf(e.target as HTMLElement);
      if (i >= 0 && this.cellKey[i] !== this.cursor) this.moveCursor(this.cellKey[i], false);
    });

    this.log = h('div', { class: 'visually-hidden', role: 'log', 'aria-live': 'polite', 'data-testid': 'announce' });

    this.input = h('input', {
      type: 'text',
      id: `${id}-typed`,
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      enterkeyhint: 'go',
      'aria-describedby': `${id}-typed-msg`,
      'data-testid': 'typed-move',
    });
    this.typedLabel = h('label', { for: `${id}-typed` });
    this.typedBtn = h('button', { type: 'submit', class: 'btn', 'data-testid': 'typed-play' });
    this.typedMsg = h('div', { class: 'typed-msg', id: `${id}-typed-msg`, 'aria-live': 'polite', 'data-testid': 'typed-msg' });
    this.form = h(
      'form',
      { class: 'typed-move', novalidate: true, 'data-testid': 'typed-form', hidden: true },
      this.typedLabel,
      h('div', { class: 'typed-row' }, this.input, this.typedBtn),
      this.typedMsg,
    );
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submitTyped();
    });
    this.input.addEventListener('input', () => {
      this.input.removeAttribute('aria-invalid');
      setText(this.typedMsg, '');
    });
    this.relabel();
  }

  /** Texts of the current language. */
  relabel(): void {
    this.grid.setAttribute('aria-label', t('boardLabel'));
    setText(this.help, t('boardHelp'));
    setText(this.typedLabel, t('typedLabel'));
    this.input.placeholder = t('typedHint');
    setText(this.typedBtn, t('typedPlay'));
    setText(this.typedMsg, '');
    this.labels.fill('');
    if (this.view) this.refresh();
  }

  /** Follows what the board shows; `host` is the board's element, which the grid lies on. */
  sync(host: HTMLElement, v: BoardView): void {
    if (this.grid.parentNode !== host) host.appendChild(this.grid);
    // the drawn board says nothing useful to a screen reader: the grid says it instead
    host.querySelector('cg-container')?.setAttribute('aria-hidden', 'true');
    const flipped = !this.view || this.view.orientation !== v.orientation;
    this.view = v;
    if (flipped) {
      for (let i = 0; i < 64; i++) {
        const r = Math.floor(i / 8);
        const c = i % 8;
        this.cellKey[i] = v.orientation === 'white' ? FILES[c] + (8 - r) : FILES[7 - c] + (r + 1);
        this.cells[i].dataset.square = this.cellKey[i];
      }
    }
    if (!this.cursor) this.cursor = this.startSquare(v);
    this.form.hidden = !v.me || v.over;
    this.refresh();
  }

  /** Reads a line out (and keeps the last few, as a log). */
  say(text: string): void {
    if (!text) return;
    this.log.appendChild(h('p', null, text));
    while (this.log.childNodes.length > 6) this.log.removeChild(this.log.firstChild!);
  }

  clearLog(): void {
    replace(this.log);
  }

  /** Reads out what changed between two states of one game: the move (with check or
   * mate) and the count. Whose turn it is and the result are the status line's. */
  sayChange(prev: GameState, s: GameState): void {
    const lines: string[] = [];
    const n = s.moves.length;
    if (n === prev.moves.length + 1) {
      const mate = s.reason === 'checkmate' || s.reason === 'count-mate';
      lines.push(describeMove(s.variant, prev.fen, s.fen, s.moves[n - 1], s.check, mate));
    } else if (n > prev.moves.length && s.san[n - 1]) {
      // several moves at once (back after a lost connection): the last one, as written
      const mover: Color = s.turn === 'w' ? 'b' : 'w';
      lines.push(`${colorWord(mover)}: ${moveText(s.san[n - 1], s.moves[n - 1])}`);
    }
    const c = s.count;
    const pc = prev.count;
    if (c && (!pc || pc.side !== c.side || pc.kind !== c.kind)) {
      lines.push(t('countStarted', { color: colorWord(c.side), kind: t(c.kind === 'piece' ? 'pieceCount' : 'boardCount'), n: c.n, limit: c.limit }));
    } else if (c && pc && c.n !== pc.n) {
      lines.push(t('countN', { n: c.n, limit: c.limit }));
    } else if (!c && pc && s.result === '*') {
      lines.push(t('countStopped'));
    }
    this.say(lines.reduce((acc, l) => (acc ? t('markSay', { move: acc, mark: l }) : l), ''));
  }

  /** After a move is handed to the board: no second one until the server answers. */
  private played(): void {
    if (!this.view) return;
    this.view.canMove = false;
    this.view.legal = [];
  }

  private startSquare(v: BoardView): string {
    const b = parsePlacement(v.fen);
    const king = v.me === 'b' ? 'k' : 'K';
    for (const [sq, p] of b) if (p === king) return sq;
    return v.orientation === 'white' ? 'a1' : 'h8';
  }

  private destsOf(from: string): string[] {
    return (this.view?.legal ?? []).filter((m) => m.startsWith(from)).map((m) => m.slice(2, 4));
  }

  /** Labels, the selected square and the one square that takes Tab. */
  private refresh(): void {
    const v = this.view!;
    const board = parsePlacement(v.fen);
    const sel = this.hooks.selected();
    const dests = sel ? this.destsOf(sel) : [];
    for (let i = 0; i < 64; i++) {
      const sq = this.cellKey[i];
      const p = board.get(sq);
      let label = p ? t('squarePiece', { square: squareName(sq), piece: describePiece(v.variant, p) }) : t('squareEmpty', { square: squareName(sq) });
      if (dests.includes(sq)) label += `, ${t('canMoveHere')}`;
      const cell = this.cells[i];
      if (this.labels[i] !== label) {
        this.labels[i] = label;
        cell.setAttribute('aria-label', label);
      }
      const selected = String(sq === sel);
      if (cell.getAttribute('aria-selected') !== selected) cell.setAttribute('aria-selected', selected);
      const tab = sq === this.cursor ? '0' : '-1';
      if (cell.getAttribute('tabindex') !== tab) cell.setAttribute('tabindex', tab);
      cell.classList.toggle('kb-dest', dests.includes(sq));
    }
  }

  private cellOf(sq: string): HTMLElement | undefined {
    return this.cells[this.cellKey.indexOf(sq)];
  }

  private moveCursor(sq: string, focus = true): void {
    this.cursor = sq;
    this.refresh();
    if (focus) this.cellOf(sq)?.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const i = this.cellKey.indexOf(this.cursor);
    const r = Math.floor(i / 8);
    const c = i % 8;
    const go = (rr: number, cc: number) => this.moveCursor(this.cellKey[Math.max(0, Math.min(7, rr)) * 8 + Math.max(0, Math.min(7, cc))]);
    switch (e.key) {
      case 'ArrowUp':
        go(r - 1, c);
        break;
      case 'ArrowDown':
        go(r + 1, c);
        break;
      case 'ArrowLeft':
        go(r, c - 1);
        break;
      case 'ArrowRight':
        go(r, c + 1);
        break;
      case 'Enter':
      case ' ':
        if (!e.repeat) this.activate(this.cursor);
        break;
      case 'Escape':
        if (!this.hooks.selected()) return;
        this.hooks.cancel();
        this.refresh();
        this.say(t('kbCancelled'));
        break;
      default:
        return;
    }
    // the arrows here move around the board, not through the move list
    e.preventDefault();
    e.stopPropagation();
  }

  /** Enter or Space on a square: pick up a piece there, or put the one picked up down. */
  private activate(sq: string): void {
    const v = this.view;
    if (!v) return;
    const board = parsePlacement(v.fen);
    const p = board.get(sq);
    const sel = this.hooks.selected();
    if (sel && sq === sel) {
      this.hooks.cancel();
      this.refresh();
      this.say(t('kbCancelled'));
      return;
    }
    if (sel && this.destsOf(sel).includes(sq)) {
      this.hooks.play(sel, sq);
      this.played();
      this.refresh();
      return;
    }
    const mine = !!p && !!v.me && colorOf(p) === v.me;
    if (!v.canMove) {
      this.say(!v.me || v.over ? t('kbNoPlay') : !v.live ? t('kbOldPosition') : t('kbNotYourTurn'));
      return;
    }
    if (mine) {
      if (this.destsOf(sq).length === 0) {
        this.say(t('kbNoMoves'));
        return;
      }
      this.hooks.pick(sq);
      this.refresh();
      this.say(t('kbPicked', { piece: pieceName(v.variant, p!), square: squareName(sq) }));
      return;
    }
    this.say(sel ? t('kbIllegal', { square: squareName(sq) }) : t('kbNotYours'));
  }

  private async submitTyped(): Promise<void> {
    const v = this.view;
    if (!v) return;
    const text = this.input.value;
    let msg = '';
    if (!v.canMove) {
      msg = !v.me || v.over ? t('kbNoPlay') : !v.live ? t('kbOldPosition') : t('kbNotYourTurn');
    } else {
      let r: { ok: boolean; move?: string; error?: string };
      try {
        r = await rulesCore().typed(v.variant === 'ouk' ? 'ouk' : 'makruk', v.fen, text);
      } catch {
        return; // the core stopped (the page is going away)
      }
      // Still the position the move was typed in, and a move the server offered.
      if (this.view?.fen !== v.fen || !this.view.canMove) return;
      if (r.ok && r.move && v.legal.includes(r.move)) {
        this.input.value = '';
        this.input.removeAttribute('aria-invalid');
        setText(this.typedMsg, '');
        this.hooks.play(r.move.slice(0, 2), r.move.slice(2, 4));
        this.played();
        this.refresh();
        return;
      }
      msg = r.error === 'empty' ? t('typedHint') : r.error === 'ambiguous' ? t('typedAmbiguous', { text: text.trim() }) : t('typedBad', { text: text.trim() });
    }
    this.input.setAttribute('aria-invalid', 'true');
    // said again even when it is the same text as last time
    setText(this.typedMsg, '');
    window.setTimeout(() => setText(this.typedMsg, msg), 30);
  }
}
