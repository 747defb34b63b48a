// A player's bar above or below the board: the king's chip in their colour, the name,
// the presence dot and "you", the count when it runs on their side, and their clock at a
// table with one.
import type { Color, GameState } from '../shared/api';
import { clockText, timeLeft } from '../shared/clock';
import { h, replace, setText } from '../shared/dom';
import { digits, t } from '../shared/i18n';
import { pieceSvg } from '../shared/pieces';

export interface PlayerBar {
  el: HTMLElement;
  chip: HTMLImageElement;
  name: HTMLElement;
  tags: HTMLElement;
  count: HTMLElement;
  clock: HTMLElement;
}

export function makeBar(testid: string): PlayerBar {
  const chip = h('img', { class: 'chip', alt: '' });
  const name = h('span', { class: 'pname' });
  const tags = h('span', { class: 'ptags', style: { display: 'flex', gap: '4px', alignItems: 'center' } });
  const count = h('span', { class: 'count', 'data-testid': `${testid}-count`, 'aria-live': 'polite' });
  const clock = h('span', { class: 'pclock', 'data-testid': `${testid}-clock`, role: 'timer', hidden: true });
  const el = h('div', { class: 'pbar', 'data-testid': testid }, chip, name, tags, count, clock);
  return { el, chip, name, tags, count, clock };
}

/** The bar's clock as it stands now (called again and again while it runs). */
export function drawClock(bar: PlayerBar, color: Color, s: GameState): void {
  const c = s.clock;
  bar.clock.hidden = !c;
  if (!c) return;
  const left = timeLeft(c, color);
  setText(bar.clock, clockText(left));
  bar.clock.classList.toggle('running', c.running === color);
  bar.clock.classList.toggle('low', left < 20000);
  bar.clock.dataset.ms = String(Math.round(left));
  bar.clock.setAttribute('aria-label', t('clockLeft', { side: color === 'w' ? t('white') : t('black'), time: clockText(left) }));
}

/** Who plays the bar's colour, as the bar shows them. */
export interface BarPlayer {
  name: string | null; // none: the colour's name
  presence: 'on' | 'off' | 'unknown' | null; // the dot after the name (none at no table, or for the CPU)
  mine: boolean; // this viewer's side: "you"
}

export function drawBar(bar: PlayerBar, color: Color, s: GameState, who: BarPlayer): void {
  bar.chip.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg('k', color === 'w' ? 'white' : 'black'))}`;
  bar.chip.alt = color === 'w' ? t('white') : t('black');
  setText(bar.name, who.name ?? (color === 'w' ? t('white') : t('black')));
  bar.el.classList.toggle('turn', s.result === '*' && s.turn === color);
  bar.el.dataset.color = color;
  // the presence dot first, right after the name; then "you"
  const tags: Node[] = [];
  if (who.presence) {
    const title = who.presence === 'unknown' ? t('presenceUnknown') : who.presence === 'on' ? t('onlineMark') : t('offlineMark');
    tags.push(h('span', { class: `dot ${who.presence}`, 'data-testid': 'presence', 'data-presence': who.presence, title }));
  }
  if (who.mine) tags.push(h('span', { class: 'tag' }, t('youMark')));
  replace(bar.tags, tags);
  drawClock(bar, color, s);
  const c = s.count;
  if (c && c.side === color) {
    replace(bar.count, `${digits(c.n)} / ${digits(c.limit)}`, h('small', null, c.kind === 'piece' ? t('pieceCount') : t('boardCount')));
    bar.count.classList.add('show');
    bar.count.title = t('countN', { n: c.n, limit: c.limit });
    bar.count.dataset.n = String(c.n);
    bar.count.dataset.limit = String(c.limit);
  } else {
    // keep its space (no layout jump when the count appears)
    replace(bar.count, '0 / 64', h('small', null, t('boardCount')));
    bar.count.classList.remove('show');
    delete bar.count.dataset.n;
    delete bar.count.dataset.limit;
  }
}
