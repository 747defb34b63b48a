// /tournament/new: a host makes a tournament (its name, game, format, rounds or length,
// live or turn-based games, clock and counting), then lands on its page as the host.
import { h } from '../shared/dom';
import { t } from '../shared/i18n';
import type { Counting, TableMode, Variant } from '../shared/api';
import { clockRule, clockSeg, countingSeg, variantSeg } from '../shared/choices';
import { errorText, link, navigate, seg, type Screen } from '../shared/ui';
import { hold, tapi, type Format } from './api';
import { tt } from './text';

const ROUNDS = [3, 4, 5, 6, 7, 9];
const MINUTES = [30, 45, 60, 90, 120];

export function newTournamentScreen(): Screen {
  const o = {
    variant: 'makruk' as Variant,
    format: 'swiss' as Format,
    rounds: 5,
    minutes: 60,
    mode: 'live' as TableMode,
    clock: '10+5',
    counting: 'auto' as Counting,
  };
  const title = h('input', {
    type: 'text',
    id: 'tournament-title',
    maxlength: 60,
    placeholder: tt('titlePlaceholder'),
    autocomplete: 'off',
    'data-testid': 'tournament-title',
  });
  const formatHint = h('div', { class: 'hint', 'aria-live': 'polite', 'data-testid': 'format-hint' });
  const rounds = seg(
    tt('roundsLabel'),
    ROUNDS.map((n) => ({ value: n, text: String(n) })),
    () => o.rounds,
    (v) => (o.rounds = v),
    'rounds',
  );
  const minutes = seg(
    tt('minutesLabel'),
    MINUTES.map((n) => ({ value: n, text: tt('minutes', { n }) })),
    () => o.minutes,
    (v) => (o.minutes = v),
    'minutes',
  );
  const showFormat = () => {
    formatHint.textContent = tt(`${o.format}Hint`);
    rounds.hidden = o.format !== 'swiss';
    minutes.hidden = o.format !== 'arena';
  };
  const clock = clockSeg(
    () => o.clock,
    (v) => (o.clock = v),
  );
  clock.append(h('div', { class: 'hint' }, tt('clockHint')));
  const format = seg(
    tt('formatLabel'),
    (['swiss', 'roundrobin', 'arena'] as Format[]).map((f) => ({ value: f, text: tt(f) })),
    () => o.format,
    (v) => {
      o.format = v;
      showFormat();
    },
    'format',
  );
  format.append(formatHint);
  showFormat();
  const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
  const create = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'create' }, tt('create'));
  const form = h(
    'form',
    { novalidate: true, class: 'tournament-new' },
    h('h1', null, tt('newTitle')),
    h('p', { class: 'muted' }, tt('newIntro')),
    h('div', { class: 'field' }, h('label', { for: 'tournament-title' }, tt('titleLabel')), title),
    variantSeg(
      () => o.variant,
      (v) => (o.variant = v),
    ),
    format,
    rounds,
    minutes,
    seg(
      tt('gamesLabel'),
      [
        { value: 'live', text: t('modeLive') },
        { value: 'turn', text: t('modeTurn') },
      ],
      () => o.mode,
      (v) => {
        o.mode = v;
        clock.hidden = v === 'turn'; // turn-based games have no clock
      },
      'mode',
    ),
    clock,
    countingSeg(
      () => o.counting,
      (v) => (o.counting = v),
    ),
    err,
    create,
    h('p', null, link('/', { class: 'btn quiet', 'data-testid': 'back' }, t('back'))),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    create.disabled = true;
    try {
      const r = await tapi.create({
        title: title.value.trim() || undefined,
        variant: o.variant,
        counting: o.counting,
        mode: o.mode,
        format: o.format,
        ...(o.format === 'swiss' ? { rounds: o.rounds } : {}),
        ...(o.format === 'arena' ? { minutes: o.minutes } : {}),
        clock: o.mode === 'live' ? clockRule(o.clock) : null,
      });
      hold(r.code, { host: r.hostToken });
      navigate(`/t/${r.code}`);
    } catch (ex) {
      err.textContent = errorText(ex);
      create.disabled = false;
    }
  });
  return { el: form };
}
