// The way in to the feedback board: its routes (/feedback, and /admin for the maintainers),
// the small section on the home page, the link beside the game's meta line, and the few
// words those need. The pages themselves (feedback.ts, admin.ts, with their texts, text.ts)
// are loaded only when one is opened, so the rest of the app stays as light as it was.
import './links.css';
import { h, replace } from '../shared/dom';
import { lang, textTable, type Lang } from '../shared/i18n';
import { CODE_RE, normaliseCode } from '../shared/api';
import { lazyScreen, link, type Screen } from '../shared/ui';
import type { FeedbackKind } from './text';


interface Words {
  heading: string;
  send: string;
  setting: string;
  board: string;
  gameLink: string;
  newTab: string;
  loading: string;
}

const WORDS: Record<Lang, Words> = {
  en: {
    heading: 'Feedback',
    send: 'Send feedback or a bug about this game',
    setting: 'Request a setting for this game',
    board: 'We publish the feedback you send and what we do about it here',
    gameLink: 'Feedback or a bug',
    newTab: '(opens in a new tab)',
    loading: 'Loading…',
  },
  th: {
    heading: 'ความคิดเห็น',
    send: 'ส่งความคิดเห็นหรือแจ้งข้อบกพร่องของเกมนี้',
    setting: 'ขอให้เพิ่มการตั้งค่าในเกมนี้',
    board: 'เราเผยแพร่ความคิดเห็นที่คุณส่งมาและสิ่งที่เราทำไว้ที่นี่',
    gameLink: 'ความคิดเห็นหรือแจ้งข้อบกพร่อง',
    newTab: '(เปิดในแท็บใหม่)',
    loading: 'กำลังโหลด…',
  },
  km: {
    heading: 'មតិយោបល់',
    send: 'ផ្ញើមតិយោបល់ ឬរាយការណ៍កំហុសអំពីហ្គេមនេះ',
    setting: 'ស្នើសុំការកំណត់សម្រាប់ហ្គេមនេះ',
    board: 'យើងផ្សាយមតិយោបល់ដែលអ្នកផ្ញើមក និងអ្វីដែលយើងធ្វើចំពោះវា នៅទីនេះ',
    gameLink: 'មតិយោបល់ ឬរាយការណ៍កំហុស',
    newTab: '(បើកក្នុងផ្ទាំងថ្មី)',
    loading: 'កំពុងផ្ទុក…',
  },
};

const words = textTable(WORDS).words;

/** The path of the feedback page, with the kind picked and the table it is about. */
export function feedbackPath(kind?: FeedbackKind, table?: string): string {
  const q = new URLSearchParams();
  if (table) q.set('table', table);
  if (kind) q.set('kind', kind);
  const s = q.toString();
  return s ? `/feedback?${s}` : '/feedback';
}

/** The home page's small "Feedback" section: send feedback or a bug, ask for a setting, the board. */
export function feedbackLinks(): HTMLElement {
  const w = words();
  return h(
    'section',
    { class: 'feedback-links', 'aria-labelledby': 'feedback-links-title', 'data-testid': 'feedback-links' },
    h('h2', { id: 'feedback-links-title' }, w.heading),
    h(
      'div',
      { class: 'row' },
      link(feedbackPath('feedback'), { class: 'btn', 'data-testid': 'feedback-send-link' }, w.send),
      link(feedbackPath('setting'), { class: 'btn', 'data-testid': 'feedback-setting-link' }, w.setting),
    ),
    h('p', null, link('/feedback#feedback-board', { 'data-testid': 'feedback-board-link' }, w.board)),
  );
}

const gameLinks = new WeakMap<HTMLElement, HTMLAnchorElement>();

/**
 * The small "Feedback or a bug" link under the game's meta line (after the "Rules" link when
 * there is one). It opens the feedback page in a new tab with the table's code attached, so
 * that the game stays where it is. Made once per game screen and then only updated.
 */
export function placeFeedbackLink(meta: HTMLElement, code: string): void {
  let a = gameLinks.get(meta);
  if (!a) {
    a = h('a', { class: 'feedback-game-link', target: '_blank', rel: 'noopener', 'data-testid': 'feedback-link' });
    gameLinks.set(meta, a);
  }
  const next = meta.nextElementSibling;
  const after = next && next !== a && next.classList.contains('learn-game-link') ? next : meta;
  if (after.nextElementSibling !== a && after.parentNode) after.after(a);
  const href = feedbackPath('bug', code);
  if (a.getAttribute('href') !== href) a.setAttribute('href', href);
  if (a.dataset.lang !== lang()) {
    a.dataset.lang = lang();
    replace(a, words().gameLink, h('span', { class: 'visually-hidden' }, ` ${words().newTab}`));
  }
}

function kindParam(v: string | null): FeedbackKind {
  return v === 'bug' || v === 'setting' ? v : 'feedback';
}

/** The screen for /feedback or /admin, or null when the path is neither. */
export function feedbackRoute(path: string, search: URLSearchParams): Screen | null {
  const m = /^\/(feedback|admin)\/?$/.exec(path);
  if (!m) return null;
  const host = h('div', { class: 'feedback-host' });
  if (m[1] === 'admin') return lazyScreen(host, words().loading, () => import('./admin'), (mod) => mod.adminScreen());
  const table = normaliseCode(search.get('table') ?? '');
  return lazyScreen(
    host,
    words().loading,
    () => import('./feedback'),
    (mod) => mod.feedbackScreen(kindParam(search.get('kind')), CODE_RE.test(table) ? table : null),
  );
}
