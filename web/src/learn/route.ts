// The way in to the "learn the game" pages: their route (/learn/makruk, /learn/ouk; /learn
// alone is Makruk), the links to them from the home page and the game screen, and the few
// words those links need. The pages themselves (learn.ts with their long texts, text.ts) are
// loaded only when one is opened, so the rest of the app stays as light as it was.
import './links.css';
import { h, replace } from '../shared/dom';
import { lang, t, textTable, type Lang } from '../shared/i18n';
import { lazyScreen, link, type Screen } from '../shared/ui';
import type { Variant } from '../shared/api';


const WORDS: Record<Lang, { learn: string; rules: string; newTab: string; loading: string }> = {
  en: { learn: 'Learn to play', rules: 'Rules', newTab: '(opens in a new tab)', loading: 'Loading…' },
  th: { learn: 'เรียนรู้วิธีเล่น', rules: 'กติกา', newTab: '(เปิดในแท็บใหม่)', loading: 'กำลังโหลด…' },
  km: { learn: 'រៀនលេង', rules: 'ច្បាប់លេង', newTab: '(បើកក្នុងផ្ទាំងថ្មី)', loading: 'កំពុងផ្ទុក…' },
};

const words = textTable(WORDS).words;

export function learnPath(variant: string): string {
  return `/learn/${variant === 'ouk' ? 'ouk' : 'makruk'}`;
}

/** The home page's "Learn to play" heading and its two links, one per game. */
export function learnLinks(): HTMLElement {
  return h(
    'section',
    { class: 'learn-links', 'aria-labelledby': 'learn-links-title', 'data-testid': 'learn-links' },
    h('h2', { id: 'learn-links-title' }, words().learn),
    h(
      'div',
      { class: 'row' },
      link(learnPath('makruk'), { class: 'btn', 'data-testid': 'learn-makruk' }, t('makruk')),
      link(learnPath('ouk'), { class: 'btn', 'data-testid': 'learn-ouk' }, t('ouk')),
    ),
  );
}

const gameLinks = new WeakMap<HTMLElement, HTMLAnchorElement>();

/**
 * The small "Rules" link right under the game's meta line. It opens the page in a new tab,
 * so that the game stays where it is. One link per game screen, made once and then only
 * updated, so that it keeps the keyboard focus while the game goes on around it.
 */
export function placeLearnLink(meta: HTMLElement, variant: string): void {
  let a = gameLinks.get(meta);
  if (!a) {
    a = h('a', { class: 'learn-game-link', target: '_blank', rel: 'noopener', 'data-testid': 'learn-link' });
    gameLinks.set(meta, a);
  }
  if (meta.nextElementSibling !== a && meta.parentNode) meta.after(a);
  const href = learnPath(variant);
  if (a.getAttribute('href') !== href) a.setAttribute('href', href);
  if (a.dataset.lang !== lang()) {
    a.dataset.lang = lang();
    replace(a, words().rules, h('span', { class: 'visually-hidden' }, ` ${words().newTab}`));
  }
}

/** The screen for a /learn path, or null when the path is not one. */
export function learnRoute(path: string): Screen | null {
  const m = /^\/learn(?:\/(makruk|ouk))?\/?$/.exec(path);
  if (!m) return null;
  const variant: Variant = m[1] === 'ouk' ? 'ouk' : 'makruk';
  return lazyScreen(
    h('div', { class: 'learn-host', 'data-variant': variant }),
    words().loading,
    () => import('./learn'),
    (mod) => mod.learnScreen(variant),
  );
}
