// Setting up a position for the analysis board: a palette of pieces (both sides, the
// promoted pawn too, and an eraser), the board's squares as buttons (so a keyboard or a
// screen reader can place pieces too), the side to move. The rules core judges the
// result: a position no game can be in is refused with its reason.
import type { Variant } from '../shared/api';
import { describePiece, squareName } from '../game/boardkeys';
import { h, replace } from '../shared/dom';
import { t } from '../shared/i18n';
import { pieceSvg, type RoleId } from '../shared/pieces';
import { parsePlacement, placement, type Board } from '../shared/placement';

const ROLES: RoleId[] = ['k', 'm', 's', 'n', 'r', 'p', 'pm'];

/** The FEN letters of a role and side ("K", "m~"). */
function fenPiece(role: RoleId, white: boolean): string {
  const letter = role === 'pm' ? 'm~' : role;
  return white ? letter.charAt(0).toUpperCase() + letter.slice(1) : letter;
}

function roleOf(piece: string): { role: RoleId; white: boolean } {
  const white = piece[0] === piece[0].toUpperCase();
  return { role: piece.endsWith('~') ? 'pm' : (piece[0].toLowerCase() as RoleId), white };
}

function image(piece: string): HTMLElement {
  const { role, white } = roleOf(piece);
  const span = h('span', { class: 'setup-piece', 'aria-hidden': 'true' });
  span.innerHTML = pieceSvg(role, white ? 'white' : 'black'); // our own drawing, no user text
  return span;
}

/** Ouk Chatrang's first-move rights for the pieces still on their starting squares. */
function oukRights(b: Board): string {
  let r = '';
  if (b.get('d1') === 'K') r += 'D';
  if (b.get('e1') === 'M') r += 'E';
  if (b.get('d8') === 'm') r += 'd';
  if (b.get('e8') === 'k') r += 'e';
  return r || '-';
}

export class SetupBoard {
  el: HTMLElement;
  private board: Board;
  private white: boolean;
  private chosen = 'P';
  private grid: HTMLElement;
  private palette: HTMLElement;
  private error: HTMLElement;

  constructor(
    private variant: Variant,
    fen: string,
    private check: (fen: string) => Promise<string | null>,
    private done: (fen: string) => void,
    cancel: () => void,
  ) {
    this.board = parsePlacement(fen);
    this.white = fen.split(' ')[1] !== 'b';
    this.grid = h('div', { class: 'setup-grid', role: 'group', 'aria-label': t('setupBoard'), 'data-testid': 'setup-grid' });
    this.palette = h('div', { class: 'setup-palette', role: 'group', 'aria-label': t('setupPalette') });
    this.error = h('p', { class: 'error', role: 'alert', 'data-testid': 'setup-error' });
    const side = h(
      'select',
      { id: 'setup-side', 'data-testid': 'setup-side' },
      h('option', { value: 'w', selected: this.white ? true : undefined }, t('white')),
      h('option', { value: 'b', selected: this.white ? undefined : true }, t('black')),
    );
    side.addEventListener('change', () => (this.white = side.value === 'w'));
    const button = (id: string, text: string, run: () => void, cls = 'btn') => {
      const b = h('button', { type: 'button', class: cls, 'data-testid': id }, text);
      b.addEventListener('click', run);
      return b;
    };
    this.el = h(
      'section',
      { class: 'setup', 'data-testid': 'setup', 'aria-labelledby': 'setup-title' },
      h('h1', { id: 'setup-title' }, t('setupTitle')),
      h('p', { class: 'hint' }, t('setupHint')),
      this.palette,
      this.grid,
      h('div', { class: 'analysis-row' }, h('label', { for: 'setup-side' }, t('setupSide')), side),
      h(
        'div',
        { class: 'analysis-row' },
        button('setup-done', t('setupDone'), () => void this.finish(), 'btn primary'),
        button('setup-clear', t('setupClear'), () => {
          this.board = new Map();
          this.draw();
        }),
        button('setup-cancel', t('setupCancel'), cancel),
      ),
      this.error,
    );
    this.draw();
  }

  private fen(): string {
    const rights = this.variant === 'ouk' ? oukRights(this.board) : '-';
    return `${placement(this.board)} ${this.white ? 'w' : 'b'} ${rights} - 0 1`;
  }

  private async finish(): Promise<void> {
    const fen = this.fen();
    const why = await this.check(fen);
    if (why) {
      this.error.textContent = t('setupRefused', { error: why });
      return;
    }
    this.done(fen);
  }

  private draw(): void {
    const items: Node[] = [];
    for (const white of [true, false])
      for (const role of ROLES) {
        const piece = fenPiece(role, white);
        const b = h(
          'button',
          {
            type: 'button',
            class: 'setup-pick',
            'aria-pressed': String(this.chosen === piece),
            'aria-label': describePiece(this.variant, piece),
            title: describePiece(this.variant, piece),
            'data-testid': `setup-pick-${white ? 'w' : 'b'}${role}`,
          },
          image(piece),
        );
        b.addEventListener('click', () => {
          this.chosen = piece;
          this.draw();
        });
        items.push(b);
      }
    const eraser = h(
      'button',
      {
        type: 'button',
        class: 'setup-pick erase',
        'aria-pressed': String(this.chosen === ''),
        'aria-label': t('setupErase'),
        title: t('setupErase'),
        'data-testid': 'setup-pick-erase',
      },
      '✕',
    );
    eraser.addEventListener('click', () => {
      this.chosen = '';
      this.draw();
    });
    items.push(eraser);
    replace(this.palette, items);
    const squares: Node[] = [];
    for (let rank = 8; rank >= 1; rank--)
      for (let file = 0; file < 8; file++) {
        const sq = 'abcdefgh'[file] + rank;
        const piece = this.board.get(sq);
        const b = h(
          'button',
          {
            type: 'button',
            class: 'setup-square',
            'aria-label': piece ? `${squareName(sq)}: ${describePiece(this.variant, piece)}` : squareName(sq),
            'data-testid': `setup-${sq}`,
            'data-piece': piece ?? '',
          },
          piece ? image(piece) : null,
        );
        b.addEventListener('click', () => {
          // The chosen piece goes there; the same piece again, or the eraser, empties it.
          if (!this.chosen || this.board.get(sq) === this.chosen) this.board.delete(sq);
          else this.board.set(sq, this.chosen);
          this.error.textContent = '';
          this.draw();
          (this.grid.querySelector(`[data-testid="setup-${sq}"]`) as HTMLElement | null)?.focus();
        });
        squares.push(b);
      }
    replace(this.grid, squares);
  }
}
