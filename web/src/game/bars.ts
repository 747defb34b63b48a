// A player's bar above or below the board: the king's chip in their colour, the name,
// the presence dot and "you", and the count when it runs on their side.
import type { Color, GameState } from '../shared/api';
import { h, replace, setText } from '../shared/dom';
import { digits, t } from '../shared/i18n';
import { pieceSvg } from '../shared/pieces';

export interface PlayerBar {
  el: HTMLElement;
  chip: HTMLImageElement;
  name: HTMLElement;
  tags: HTMLElement;
  count: HTMLElement;
}

export function makeBar(testid: string): PlayerBar {
  const chip = h('img', { class: 'chip', alt: '' });
  const name = h('span', { class: 'pname' });
  const tags = h('span', { class: 'ptags', style: { display: 'flex', gap: '4px', alignItems: 'center' } });
  const count = h('span', { class: 'count', 'data-testid': `${testid}-count`, 'aria-live': 'polite' });
  const el = h('div', { class: 'pbar', 'data-testid': testid }, chip, name, tags, count);
  return { el, chip, name, tags, count };
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
