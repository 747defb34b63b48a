// The way in to tournaments: their routes (/tournament/new, /t/CODE, /t/CODE/projector),
// the home page's small section, and the few words those need. The pages themselves
// (newtournament.ts, tournament.ts, with their texts, text.ts) load only when one is opened.
import { h } from '../shared/dom';
import { textTable, type Lang } from '../shared/i18n';
import { CODE_RE, normaliseCode } from '../shared/api';
import { lazyScreen, link, type Screen } from '../shared/ui';

interface Words {
  heading: string;
  run: string;
  hint: string;
  loading: string;
}

const WORDS: Record<Lang, Words> = {
  en: {
    heading: 'Tournaments',
    run: 'Run a tournament',
    hint: 'For a club or a class: everyone opens one code, and each round is paired for you.',
    loading: 'Loading…',
  },
  th: {
    heading: 'การแข่งขัน',
    run: 'จัดการแข่งขัน',
    hint: 'สำหรับชมรมหรือห้องเรียน: ทุกคนเปิดรหัสเดียวกัน แล้วระบบจับคู่ให้ทุกรอบ',
    loading: 'กำลังโหลด…',
  },
  km: {
    heading: 'ការប្រកួត',
    run: 'រៀបចំការប្រកួត',
    hint: 'សម្រាប់ក្លឹប ឬថ្នាក់រៀន៖ អ្នករាល់គ្នាបើកលេខកូដតែមួយ ហើយប្រព័ន្ធផ្គូផ្គងគ្រប់ជុំឲ្យ។',
    loading: 'កំពុងផ្ទុក…',
  },
};

const words = textTable(WORDS).words;

/** The home page's small "Tournaments" section. */
export function tournamentLinks(): HTMLElement {
  const w = words();
  return h(
    'section',
    { class: 'tournament-links', 'aria-labelledby': 'tournament-links-title', 'data-testid': 'tournament-links' },
    h('h2', { id: 'tournament-links-title' }, w.heading),
    h('p', { class: 'muted' }, w.hint),
    link('/tournament/new', { class: 'btn', 'data-testid': 'new-tournament' }, w.run),
  );
}

/** The screen for a tournament's path, or null for any other. */
export function tournamentRoute(path: string): Screen | null {
  if (/^\/tournament\/new\/?$/.test(path)) {
    return lazyScreen(h('div'), words().loading, () => import('./newtournament'), (mod) => mod.newTournamentScreen());
  }
  const m = /^\/t\/([A-Za-z0-9]+)(\/projector)?\/?$/.exec(path);
  if (!m) return null;
  const code = normaliseCode(m[1]);
  if (!CODE_RE.test(code)) return null;
  if (m[2]) {
    const screen = lazyScreen(h('div'), words().loading, () => import('./tournament'), (mod) => new mod.ProjectorScreen(code));
    screen.wide = true;
    return screen;
  }
  return lazyScreen(h('div'), words().loading, () => import('./tournament'), (mod) => new mod.TournamentScreen(code));
}
