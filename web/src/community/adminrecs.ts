// The recommendations on the maintainers' page (admin.ts), newest first as the server lists
// them: each with its stars, date, writer, table and language, the words as text, and the
// button that hides it from the home and learn pages or shows it again.
import type { Recommendation } from '../shared/api';
import { h } from '../shared/dom';
import { lang, type Lang, t } from '../shared/i18n';
import { formatDate } from '../shared/time';
import { call, type Note, noteLine } from './items';
import { starsText } from './recommend';
import { fbWords, ft } from './text';

/** One recommendation of the maintainers' list (`GET /api/admin/recommendations`). */
export interface AdminRecommendation extends Recommendation {
  code: string;
  hidden: boolean;
}

/** What the lists on the maintainers' page need of it. */
export interface AdminSession {
  /** The maintainers' key the page signed in with. */
  readonly secret: string;
  /** The page was left: an answer that comes later changes nothing. */
  readonly gone: boolean;
  /** What a refused change says under the item; null when a wrong key signed the page out instead. */
  refused(e: unknown): string | null;
}

export class RecModeration {
  private recs: AdminRecommendation[] = [];
  private readonly notes = new Map<number, Note>();
  private readonly views = new Map<number, HTMLLIElement>();

  constructor(private readonly session: AdminSession) {}

  /** The list as the server gave it, once signed in. */
  set(recs: AdminRecommendation[]): void {
    this.recs = recs;
  }

  /** Signed out: nothing of the list is kept. */
  clear(): void {
    this.recs = [];
    this.notes.clear();
  }

  /** The section under the messages: its heading, how many, and the list. */
  section(): HTMLElement {
    const w = fbWords();
    this.views.clear();
    return h(
      'section',
      { 'aria-labelledby': 'fb-recs-title', 'data-testid': 'admin-recs' },
      h('h2', { id: 'fb-recs-title' }, w.recsTitle),
      h('p', { class: 'muted' }, w.recsIntro),
      h('p', { class: 'muted', 'data-testid': 'admin-rec-count' }, this.recs.length ? ft('recsCount', { n: this.recs.length }) : w.recsEmpty),
      h('ul', { class: 'fb-items', 'data-testid': 'admin-rec-items' }, this.recs.map((rec) => this.view(rec))),
    );
  }

  private async setHidden(id: number, hidden: boolean): Promise<void> {
    this.views.get(id)?.querySelectorAll('button').forEach((b) => (b.disabled = true));
    try {
      const r = await call<{ id: number; hidden: boolean }>('POST', `/api/admin/recommendations/${id}`, { hidden }, this.session.secret);
      if (this.session.gone) return;
      this.recs = this.recs.map((x) => (x.id === id ? { ...x, hidden: r.hidden } : x));
      this.notes.set(id, { ok: true, text: ft('saved') });
    } catch (e) {
      if (this.session.gone) return;
      const text = this.session.refused(e);
      if (text === null) return;
      this.notes.set(id, { ok: false, text });
    }
    const rec = this.recs.find((x) => x.id === id);
    const old = this.views.get(id);
    if (!rec || !old) return;
    const fresh = this.view(rec);
    old.replaceWith(fresh);
    fresh.querySelector<HTMLElement>(`[data-testid="admin-rec-hide-${id}"]`)?.focus();
  }

  private view(rec: AdminRecommendation): HTMLLIElement {
    const w = fbWords();
    const toggle = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': `admin-rec-hide-${rec.id}`, 'data-hidden': String(rec.hidden) },
      rec.hidden ? w.recShow : w.recHide,
      h('span', { class: 'visually-hidden' }, ft('recWhose', { name: rec.name, code: rec.code })),
    );
    toggle.addEventListener('click', () => void this.setHidden(rec.id, !rec.hidden));
    const li = h(
      'li',
      { class: 'fb-item', 'data-testid': `admin-rec-${rec.id}`, 'data-id': String(rec.id), 'data-hidden': String(rec.hidden) },
      recHead(rec),
      rec.text
        ? h('p', { class: 'fb-text', 'data-testid': 'admin-rec-text', lang: rec.lang && rec.lang !== lang() ? rec.lang : null }, rec.text)
        : null,
      h(
        'div',
        { class: 'fb-admin-edit' },
        rec.hidden ? h('p', { class: 'muted', 'data-testid': 'admin-rec-hidden-mark' }, h('b', null, w.recHiddenMark)) : null,
        h('div', { class: 'row' }, toggle),
        noteLine(this.notes.get(rec.id), 'admin-rec-note'),
      ),
    );
    this.views.set(rec.id, li);
    return li;
  }
}

/** A recommendation's first line: stars, date, writer, table and language. */
function recHead(rec: AdminRecommendation): HTMLElement {
  const w = fbWords();
  return h(
    'div',
    { class: 'fb-head' },
    h(
      'span',
      { class: 'fb-kind', 'data-testid': 'admin-rec-stars' },
      h('span', { 'aria-hidden': 'true' }, starsText(rec.stars)),
      h('span', { class: 'visually-hidden' }, t('nStars', { n: rec.stars })),
    ),
    h('time', { datetime: new Date(rec.createdAt).toISOString(), title: ft('sentOn', { date: formatDate(rec.createdAt) }) }, formatDate(rec.createdAt)),
    h('span', { 'data-testid': 'admin-rec-name' }, ft('fromName', { name: rec.name })),
    h('span', { 'data-testid': 'admin-rec-table' }, ft('tableCode', { code: rec.code })),
    h('span', { 'data-testid': 'admin-rec-lang' }, ft('recLang', { lang: w.langs[rec.lang as Lang] ?? rec.lang })),
  );
}
