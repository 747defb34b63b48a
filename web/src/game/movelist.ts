// The move list beside the board: the moves in the page's notation with a review's
// marks, the one shown, the buttons to step through them (first, previous, next, last)
// and "move n of m" while an earlier position is shown.
import type { GameState } from '../shared/api';
import { h, replace, setText } from '../shared/dom';
import { t } from '../shared/i18n';
import { moveNumber, moveText } from '../shared/notation';

let lists = 0; // tells apart the ids of the lists made in one page

export type Mark = { text: string; kind: string } | null;

export class MoveList {
  readonly nav: HTMLElement = h('div', { class: 'moves-nav' });
  readonly help: HTMLElement = h('div', { class: 'visually-hidden', id: `moves-help-${++lists}` });
  readonly list: HTMLElement = h('div', { class: 'movelist', 'data-testid': 'moves', role: 'group', 'aria-describedby': this.help.id });
  readonly viewing: HTMLElement = h('div', { class: 'viewing', 'data-testid': 'viewing' });
  /** Marks after moves (by ply - 1): "?!", "?", "??" from a review. */
  marks: Mark[] = [];

  /** `go` shows the position after a number of moves; `shown` is the one shown now. */
  constructor(
    private go: (ply: number) => void,
    private shown: () => number,
  ) {
    this.buildNav();
  }

  /** The step buttons, in the page's language. */
  buildNav(): void {
    const mk = (id: string, label: string, icon: string, f: () => void) => {
      const b = h('button', { type: 'button', 'data-testid': `nav-${id}`, 'aria-label': label, title: label, onclick: f });
      b.innerHTML = icon; // static markup below, no user data
      return b;
    };
    const svg = (d: string) =>
      `<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="${d}"/></svg>`;
    replace(
      this.nav,
      mk('first', t('first'), svg('M5 5h2.5v14H5zM19 5v14L9 12z'), () => this.go(0)),
      mk('prev', t('prev'), svg('M17 5v14L6 12z'), () => this.go(this.shown() - 1)),
      mk('next', t('next'), svg('M7 5v14l11-7z'), () => this.go(this.shown() + 1)),
      mk('last', t('last'), svg('M16.5 5H19v14h-2.5zM5 5v14l10-7z'), () => this.go(Number.MAX_SAFE_INTEGER)),
    );
  }

  /** `viewPly`: the position shown (null: the live one); `canStep`: the positions are known. */
  render(s: GameState, viewPly: number | null, canStep: boolean): void {
    const sans = s.san.map((san, i) => moveText(san, s.moves[i]));
    const cur = viewPly ?? s.moves.length;
    // One Tab stop for the whole list (the move shown, or the first one at the start):
    // the arrow keys, Home and End step through it, so that the board and the move box
    // stay a few Tabs apart however long the game.
    const stop = Math.max(1, cur);
    const hadFocus = this.list.contains(document.activeElement);
    const cells: Node[] = [];
    if (sans.length === 0) cells.push(h('div', { class: 'empty' }, t('noMoves')));
    for (let i = 0; i < sans.length; i += 2) {
      cells.push(h('div', { class: 'no' }, moveNumber(i / 2 + 1)));
      for (const j of [i, i + 1]) {
        if (j >= sans.length) {
          cells.push(h('span'));
          continue;
        }
        const mark = this.marks[j];
        cells.push(
          h(
            'button',
            {
              type: 'button',
              class: j + 1 === cur ? 'cur' : '',
              'data-ply': String(j + 1),
              tabindex: j + 1 === stop ? '0' : '-1',
              'aria-current': j + 1 === cur ? 'true' : undefined,
              onclick: () => this.go(j + 1),
            },
            sans[j],
            mark ? h('span', { class: `mark ${mark.kind}`, 'data-testid': `mark-${j + 1}` }, mark.text) : null,
          ),
        );
      }
    }
    this.list.setAttribute('aria-label', t('moves'));
    setText(this.help, t('movesHelp'));
    const atBottom = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 4;
    replace(this.list, cells);
    if (viewPly === null && atBottom) this.list.scrollTop = this.list.scrollHeight;
    else this.list.querySelector('.cur')?.scrollIntoView({ block: 'nearest' });
    // the list was redrawn under the focus: it stays on the list's one stop
    if (hadFocus) this.list.querySelector<HTMLElement>('button[tabindex="0"]')?.focus({ preventScroll: true });
    const n = s.moves.length;
    const btns = this.nav.querySelectorAll('button');
    (btns[0] as HTMLButtonElement).disabled = !canStep || cur === 0;
    (btns[1] as HTMLButtonElement).disabled = !canStep || cur === 0;
    (btns[2] as HTMLButtonElement).disabled = !canStep || cur >= n;
    (btns[3] as HTMLButtonElement).disabled = !canStep || cur >= n;
    setText(this.viewing, viewPly !== null ? t('viewingMove', { n: cur, total: n }) : '');
  }
}
