// /find: "Find an opponent online": pick the game, how a count starts and live or
// turn-based (or "either" for any), press one button, and be paired with the next
// person who wants the same. While waiting the player may practise against the CPU.
import { api } from '../shared/api';
import { h, setText } from '../shared/dom';
import { messageText, t } from '../shared/i18n';
import { lastWish, lobby, type LobbyCounts, type SeekWish } from './lobby';
import { nameField } from '../shared/namefield';
import { link, navigate, seg, type Screen } from '../shared/ui';

/** The counts; while this browser waits, the others who wait (it is one of the queue). */
function countsText(c: LobbyCounts | null, seeking = false): string {
  if (!c) return '';
  return seeking
    ? t('lobbyCountsSeeking', { waiting: Math.max(0, c.waiting - 1), playing: c.playing })
    : t('lobbyCounts', { waiting: c.waiting, playing: c.playing });
}

export function findScreen(): Screen {
  const wish: SeekWish =
    lobby.state.kind === 'seeking' ? { ...lobby.state.wish } : lastWish() ?? { variant: 'makruk', counting: 'auto', mode: 'live' };
  const who = nameField();
  const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
  const counts = h('p', { class: 'muted', 'data-testid': 'lobby-counts' });
  const waitCounts = h('p', { class: 'muted', 'data-testid': 'lobby-counts-waiting' });
  const either = t('either');

  const choose = h(
    'form',
    { novalidate: true, 'data-testid': 'find-form' },
    h('h1', null, t('findTitle')),
    h('p', { class: 'lead' }, t('findLead')),
    counts,
    who.field,
    seg(
      t('variant'),
      [
        { value: 'makruk', text: t('makruk') },
        { value: 'ouk', text: t('ouk') },
        { value: '', text: either },
      ],
      () => wish.variant,
      (v) => (wish.variant = v as SeekWish['variant']),
      'find-variant',
    ),
    seg(
      t('countStart'),
      [
        { value: 'auto', text: t('countAuto') },
        { value: 'declare', text: t('countDeclare') },
        { value: '', text: either },
      ],
      () => wish.counting,
      (v) => (wish.counting = v as SeekWish['counting']),
      'find-counting',
    ),
    seg(
      t('tableMode'),
      [
        { value: 'live', text: t('modeLive') },
        { value: 'turn', text: t('modeTurn') },
        { value: '', text: either },
      ],
      () => wish.mode,
      (v) => (wish.mode = v as SeekWish['mode']),
      'find-mode',
    ),
    h('p', { class: 'hint', 'data-testid': 'find-clock' }, t('findClockHint')),
    err,
    h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'find' }, t('findButton')),
    h('p', null, link('/', { class: 'btn quiet', 'data-testid': 'back' }, t('back'))),
  );
  choose.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = who.read(err);
    if (!name) return;
    err.textContent = '';
    lobby.seek({ ...wish }, name);
  });

  // Sent back to the front of the queue: the last opponent made no move.
  const front = h('p', { class: 'notice', role: 'status', 'data-testid': 'find-front', hidden: true });
  const cancel = h('button', { type: 'button', class: 'btn block', 'data-testid': 'find-cancel' }, t('findCancel'));
  cancel.addEventListener('click', () => lobby.cancel());
  const waiting = h(
    'div',
    { class: 'find-waiting', 'data-testid': 'find-waiting', hidden: true },
    h('h1', null, t('findWaitingTitle')),
    front,
    h('p', { class: 'lead', role: 'status' }, t('findWaiting')),
    waitCounts,
    cancel,
    h('div', { style: { height: '10px' } }),
    link('/practice', { class: 'btn quiet block', 'data-testid': 'find-practise' }, t('findPractise')),
  );

  const el = h('div', { class: 'find', 'data-testid': 'find-screen' }, choose, waiting);
  const off = lobby.subscribe((s, c) => {
    setText(counts, countsText(c));
    setText(waitCounts, countsText(c, s.kind === 'seeking'));
    waiting.hidden = s.kind !== 'seeking';
    front.hidden = !(s.kind === 'seeking' && s.front);
    if (s.kind === 'seeking' && s.front) setText(front, t('pairingNoMove', { name: s.front.opponent }));
    choose.hidden = s.kind === 'seeking';
    if (s.kind === 'refused') err.textContent = s.msg || s.code !== 'rate-limited' ? messageText(s) : t('rateLimited');
    if (s.kind === 'paired') {
      lobby.done();
      navigate(`/p/${s.paired.code}`);
    }
  });
  // The counts before any seek: asked once.
  api
    .lobby()
    .then((c) => {
      if (!lobby.counts) setText(counts, countsText(c));
    })
    .catch(() => {});
  return { el, destroy: off };
}
