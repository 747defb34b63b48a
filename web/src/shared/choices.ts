// The choices the forms that make a table and a tournament share: the game, how a count
// starts, and the clock house rule.
import type { Counting, Variant } from './api';
import { t } from './i18n';
import { seg } from './ui';

/** Makruk or Ouk Chatrang. */
export function variantSeg(get: () => Variant, set: (v: Variant) => void): HTMLElement {
  return seg(
    t('variant'),
    [
      { value: 'makruk', text: t('makruk') },
      { value: 'ouk', text: t('ouk') },
    ],
    get,
    set,
    'variant',
  );
}

/** A count started automatically, or declared by the player. */
export function countingSeg(get: () => Counting, set: (v: Counting) => void): HTMLElement {
  return seg(
    t('countStart'),
    [
      { value: 'auto', text: t('countAuto') },
      { value: 'declare', text: t('countDeclare') },
    ],
    get,
    set,
    'counting',
  );
}

/** The clocks offered (minutes + seconds a move), or none. */
export const CLOCKS = ['none', '5+3', '10+5', '15+10', '30+0'];

export function clockSeg(get: () => string, set: (v: string) => void): HTMLElement {
  return seg(
    t('clock'),
    CLOCKS.map((c) => ({ value: c, text: c === 'none' ? t('clockNone') : c })),
    get,
    set,
    'clock',
  );
}

/** A clock choice as the API takes it (null: none). */
export function clockRule(choice: string): { minutes: number; increment: number } | null {
  const m = /^(\d+)\+(\d+)$/.exec(choice);
  return m ? { minutes: Number(m[1]), increment: Number(m[2]) } : null;
}
