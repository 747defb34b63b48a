// What the feedback board and the maintainers' page share: a message as the server sends it,
// the requests they make, what went wrong in words, one message as the board shows it (its
// kind, status, date, writer, table, text and the maintainers' reply), and the note under a
// change on the maintainers' page. Everything people wrote goes on the page as text (dom.ts's
// h()), never as HTML.
import './feedback.css';
import { call as apiCall, type ApiError } from '../shared/api';
import { h } from '../shared/dom';
import { lang, t } from '../shared/i18n';
import { formatDate } from '../shared/time';
import { errorText } from '../shared/ui';
import { fbWords, ft, type FeedbackKind } from './text';

export type FeedbackStatus = 'new' | 'planned' | 'done' | 'wont';

/** One message of `GET /api/feedback` (and of the maintainers' list). */
export interface FeedbackItem {
  id: number;
  kind: FeedbackKind;
  text: string;
  name: string | null;
  table: string | null;
  lang: string;
  status: FeedbackStatus;
  reply: string | null;
  createdAt: number;
  repliedAt: number | null;
  hidden: boolean;
}

/** The longest message the server takes (characters). */
export const TEXT_MAX = 2000;

/** Every request of these pages; the admin's carry the secret in the Authorization header. */
export function call<T>(method: string, path: string, body?: unknown, secret?: string): Promise<T> {
  return apiCall<T>(method, path, body, secret ? { Authorization: `Bearer ${secret}` } : {});
}

/** What went wrong, in words: the shared texts, except that a 404 here is no missing table. */
export function problem(e: unknown): string {
  const err = e as ApiError;
  if (err?.status === 404 && !err.data?.msg) return t('error', { msg: err.message || '404' });
  return errorText(e);
}

/** One message as the board shows it; the maintainers' page adds its controls below. */
export function itemView(item: FeedbackItem, testid = 'fb-item'): HTMLLIElement {
  const w = fbWords();
  const head = h(
    'div',
    { class: 'fb-head' },
    h('span', { class: 'fb-kind', 'data-testid': 'fb-kind' }, w.kinds[item.kind] ?? item.kind),
    h(
      'span',
      { class: 'fb-badge', 'data-status': item.status, 'data-testid': 'fb-status' },
      h('span', { class: 'visually-hidden' }, `${w.statusLabel}: `),
      w.statuses[item.status] ?? item.status,
    ),
    h('time', { datetime: new Date(item.createdAt).toISOString(), title: ft('sentOn', { date: formatDate(item.createdAt) }) }, formatDate(item.createdAt)),
    h('span', { 'data-testid': 'fb-name' }, item.name ? ft('fromName', { name: item.name }) : w.anonymous),
    item.table ? h('span', { 'data-testid': 'fb-table' }, ft('tableCode', { code: item.table })) : null,
  );
  const reply = item.reply
    ? h(
        'div',
        { class: 'fb-reply', 'data-testid': 'fb-reply' },
        h('b', null, w.reply),
        h('p', { 'data-testid': 'fb-reply-text' }, item.reply),
        item.repliedAt ? h('small', { class: 'muted' }, ft('repliedOn', { date: formatDate(item.repliedAt) })) : null,
      )
    : null;
  return h(
    'li',
    {
      class: 'fb-item',
      'data-testid': testid,
      'data-id': String(item.id),
      'data-kind': item.kind,
      'data-status': item.status,
      'data-hidden': String(item.hidden),
    },
    head,
    h('p', { class: 'fb-text', 'data-testid': 'fb-text', lang: item.lang && item.lang !== lang() ? item.lang : null }, item.text),
    reply,
  );
}

/** What became of the last change a maintainer made to one item ("Saved", or the problem). */
export interface Note {
  ok: boolean;
  text: string;
}

/** The line under an item's controls on the maintainers' page that says its note. */
export function noteLine(note: Note | undefined, testid: string): HTMLElement {
  return h('p', { class: 'fb-note', role: 'status', 'data-testid': testid, 'data-ok': note ? String(note.ok) : null }, note?.text ?? '');
}
