// Recommendations: after a finished game a player may recommend it (stars and a
// short text, in their language); the home page shows the average and the newest.
import { api, savedSeat, type Color, type Recommendation } from '../shared/api';
import { h, replace } from '../shared/dom';
import { lang, t } from '../shared/i18n';
import { errorText } from '../shared/ui';
import { browserId } from '../lobby/lobby';

/** Moves of its own a player needs in a finished game to recommend it (the server's rule). */
export const MOVES_TO_RECOMMEND = 5;

/** The moves `side` made in a game of `moves` moves that ended with `turn` to move. */
export function ownMoves(moves: number, turn: Color, side: Color): number {
  const first: Color = moves % 2 === 0 ? turn : turn === 'w' ? 'b' : 'w';
  return side === first ? Math.ceil(moves / 2) : Math.floor(moves / 2);
}

/** The stars as the pages show them: ★★★★☆ for 4. */
export function starsText(n: number): string {
  return '★'.repeat(n) + '☆'.repeat(5 - n);
}

/** The card under a finished game, for the players. */
export class RecommendCard {
  el: HTMLElement;
  private sent = false;

  constructor(private code: string) {
    this.el = h('div', { class: 'card recommend', 'data-testid': 'recommend', hidden: true });
  }

  /** Shows the card (once a game is over, to a player), or hides it. */
  show(on: boolean): void {
    if (on && !this.el.hidden) return;
    this.el.hidden = !on;
    if (on && !this.sent) this.build();
  }

  private build(): void {
    let stars = 5;
    const err = h('div', { class: 'error', role: 'alert' });
    const radios = [1, 2, 3, 4, 5].map((n) => {
      const input = h('input', { type: 'radio', name: `stars-${this.code}`, value: String(n), checked: n === stars, 'data-testid': `star-${n}` });
      input.addEventListener('change', () => (stars = n));
      return h('label', { class: 'star' }, input, h('span', { 'aria-hidden': 'true' }, starsText(n)), h('span', { class: 'visually-hidden' }, t('nStars', { n })));
    });
    const text = h('textarea', { maxlength: 500, rows: 2, 'aria-label': t('recommendText'), placeholder: t('recommendText'), 'data-testid': 'recommend-text' });
    const send = h('button', { type: 'submit', class: 'btn primary', 'data-testid': 'recommend-send' }, t('recommendSend'));
    const form = h(
      'form',
      { novalidate: true },
      h('fieldset', null, h('legend', null, t('recommendTitle')), h('div', { class: 'stars' }, radios)),
      text,
      err,
      send,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const token = savedSeat(this.code)?.token;
      if (!token) return;
      send.disabled = true;
      try {
        await api.recommend({ code: this.code, token, stars, text: text.value.trim(), lang: lang(), browser: browserId() });
        this.sent = true;
        replace(this.el, h('p', { role: 'status', 'data-testid': 'recommend-thanks' }, t('recommendThanks', { stars: starsText(stars) })));
      } catch (ex) {
        err.textContent = errorText(ex);
        send.disabled = false;
      }
    });
    replace(this.el, form);
  }
}

/** "What players say" on the home page: the average, and the newest few. */
export function recommendationsView(): HTMLElement {
  const el = h('section', { class: 'recommendations', 'data-testid': 'recommendations', hidden: true });
  api
    .recommendations()
    .then((r) => {
      if (!r.count) return;
      const items = r.items.slice(0, 3).map((x: Recommendation) =>
        h(
          'li',
          { lang: x.lang },
          h('span', { class: 'stars', 'aria-label': t('nStars', { n: x.stars }) }, starsText(x.stars)),
          x.text ? h('q', null, x.text) : null,
          h('small', null, ` — ${x.name}`),
        ),
      );
      replace(
        el,
        h('h2', null, t('playersSay')),
        h('p', { 'data-testid': 'recommend-average' }, t('recommendAverage', { average: String(r.average ?? ''), count: r.count })),
        h('ul', null, items),
      );
      el.hidden = false;
    })
    .catch(() => {});
  return el;
}
