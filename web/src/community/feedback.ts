// The feedback board. /feedback: a short form (what kind of message, the text with a
// character counter, an optional name, the table it is about when it came from a game) and
// below it the public board: every message with its kind, status, date, text and the
// maintainers' reply. /admin: the maintainers sign in with their key and set each message's
// status, write a reply, or hide a message from the board; below, they hide or show the
// recommendations players wrote after a game.
//
// Everything people wrote is put on the page as text (dom.ts's h()), never as HTML. The
// maintainers' key is kept in this tab's sessionStorage only and goes in the Authorization
// header, never in a URL.
import './feedback.css';
import { call as apiCall, type ApiError, lastName, NAME_MAX, type Recommendation, saveName } from '../shared/api';
import { h, replace } from '../shared/dom';
import { lang, type Lang, t } from '../shared/i18n';
import { fbWords, ft, type FeedbackKind } from './text';
import { starsText } from './recommend';
import { formatDate } from '../shared/time';
import { errorText, link, seg, type Screen } from '../shared/ui';

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

/** One recommendation of the maintainers' list (`GET /api/admin/recommendations`). */
interface AdminRecommendation extends Recommendation {
  code: string;
  hidden: boolean;
}

/** The longest message the server takes (characters). */
export const TEXT_MAX = 2000;
const STATUSES: FeedbackStatus[] = ['new', 'planned', 'done', 'wont'];
const SECRET_KEY = 'makruk.adminSecret';

// Every request of these pages; the admin's carry the secret in the Authorization header.
function call<T>(method: string, path: string, body?: unknown, secret?: string): Promise<T> {
  return apiCall<T>(method, path, body, secret ? { Authorization: `Bearer ${secret}` } : {});
}

/** What went wrong, in words: the shared texts, except that a 404 here is no missing table. */
function problem(e: unknown): string {
  const err = e as ApiError;
  if (err?.status === 404 && !err.data?.msg) return t('error', { msg: err.message || '404' });
  return errorText(e);
}

const chars = (s: string) => [...s].length;

// ---------------------------------------------------------------- one message, as the board shows it

function itemView(item: FeedbackItem, testid = 'fb-item'): HTMLLIElement {
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

// ---------------------------------------------------------------- /feedback

export function feedbackScreen(startKind: FeedbackKind, startTable: string | null): Screen {
  let kind: FeedbackKind = startKind;
  let table = startTable;
  let items: FeedbackItem[] | null = null;
  let loadError: unknown = null;
  let sending = false;
  let gone = false;

  const textarea = h('textarea', {
    id: 'fb-text',
    maxlength: TEXT_MAX,
    rows: 6,
    'aria-describedby': 'fb-text-hint fb-counter',
    'data-testid': 'fb-text-input',
  });
  const counter = h('div', { class: 'fb-counter', id: 'fb-counter', 'data-testid': 'fb-counter' });
  const nameInput = h('input', {
    type: 'text',
    id: 'fb-name',
    maxlength: NAME_MAX,
    autocomplete: 'nickname',
    value: lastName(),
    'data-testid': 'fb-name-input',
  });
  const errorEl = h('p', { class: 'error', role: 'alert', 'data-testid': 'fb-error' });
  const sentEl = h('p', { class: 'fb-sent', role: 'status', 'data-testid': 'fb-sent' });
  const sendBtn = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'fb-send' });
  const boardStatus = h('p', { class: 'muted', role: 'status', 'data-testid': 'fb-board-status' });
  const list = h('ul', { class: 'fb-items', 'data-testid': 'fb-items' });
  const el = h('div', { class: 'feedback', 'data-testid': 'feedback' });

  const updateCounter = () => {
    const n = textarea.value.length;
    counter.textContent = ft('counter', { n, max: TEXT_MAX });
    counter.dataset.full = String(n >= TEXT_MAX);
  };
  textarea.addEventListener('input', () => {
    updateCounter();
    if (textarea.value.trim()) errorEl.textContent = '';
  });

  function tableChip(): HTMLElement | null {
    if (!table) return null;
    const code = table;
    const remove = h(
      'button',
      { type: 'button', class: 'btn quiet', 'data-testid': 'fb-table-remove' },
      ft('removeTable'),
      h('span', { class: 'visually-hidden' }, ft('removeTableMore', { code })),
    );
    remove.addEventListener('click', () => {
      table = null;
      const q = new URLSearchParams(location.search);
      q.delete('table');
      const s = q.toString();
      history.replaceState(null, '', `/feedback${s ? `?${s}` : ''}`);
      chip?.remove();
      textarea.focus();
    });
    const chip = h('div', { class: 'fb-table', 'data-testid': 'fb-table-chip' }, h('span', null, ft('aboutTable', { code })), remove);
    return chip;
  }

  function renderBoard(): void {
    if (items === null) {
      boardStatus.textContent = loadError ? problem(loadError) : ft('loading');
      boardStatus.className = loadError ? 'error' : 'muted';
      list.replaceChildren();
      return;
    }
    boardStatus.className = 'muted';
    boardStatus.textContent = items.length ? '' : ft('boardEmpty');
    list.replaceChildren(...items.map((i) => itemView(i)));
  }

  function render(): void {
    const w = fbWords();
    el.dataset.lang = lang();
    nameInput.placeholder = w.namePlaceholder;
    sendBtn.textContent = sending ? w.sending : w.send;
    updateCounter();
    const kindField = seg(
      w.kindLabel,
      [
        { value: 'feedback' as FeedbackKind, text: w.kindFeedback },
        { value: 'bug' as FeedbackKind, text: w.kindBug },
        { value: 'setting' as FeedbackKind, text: w.kindSetting },
      ],
      () => kind,
      (v) => (kind = v),
      'fb-kind',
    );
    const form = h(
      'form',
      { class: 'card', novalidate: true, 'aria-labelledby': 'fb-form-title', 'data-testid': 'feedback-form' },
      h('h2', { id: 'fb-form-title' }, w.formTitle),
      kindField,
      tableChip(),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'fb-text' }, w.textLabel),
        textarea,
        counter,
        h('div', { class: 'hint', id: 'fb-text-hint' }, w.textHint),
      ),
      h('div', { class: 'field' }, h('label', { for: 'fb-name' }, w.nameLabel), nameInput),
      errorEl,
      sendBtn,
      sentEl,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void send();
    });
    replace(
      el,
      h('h1', null, w.title),
      h('p', { class: 'lead' }, w.intro),
      form,
      h(
        'section',
        { id: 'feedback-board', 'aria-labelledby': 'fb-board-title', 'data-testid': 'feedback-board' },
        h('h2', { id: 'fb-board-title' }, w.boardTitle),
        boardStatus,
        list,
      ),
    );
    renderBoard();
  }

  async function send(): Promise<void> {
    if (sending) return;
    sentEl.textContent = '';
    const text = textarea.value.trim();
    if (!text) {
      errorEl.textContent = ft('needText');
      textarea.focus();
      return;
    }
    if (chars(text) > TEXT_MAX) {
      errorEl.textContent = ft('tooLong', { max: TEXT_MAX });
      textarea.focus();
      return;
    }
    const name = nameInput.value.trim();
    if (chars(name) > NAME_MAX) {
      errorEl.textContent = ft('badName', { max: NAME_MAX });
      nameInput.focus();
      return;
    }
    errorEl.textContent = '';
    sending = true;
    sendBtn.disabled = true;
    sendBtn.textContent = ft('sending');
    try {
      const r = await call<{ item: FeedbackItem }>('POST', '/api/feedback', {
        kind,
        text,
        lang: lang(),
        ...(name ? { name } : {}),
        ...(table ? { table } : {}),
      });
      if (gone) return;
      if (name) saveName(name);
      textarea.value = '';
      updateCounter();
      items = [r.item, ...(items ?? []).filter((i) => i.id !== r.item.id)];
      loadError = null;
      renderBoard();
      sentEl.textContent = ft('sent');
    } catch (e) {
      if (gone) return;
      errorEl.textContent = problem(e);
    } finally {
      sending = false;
      sendBtn.disabled = false;
      sendBtn.textContent = ft('send');
    }
  }

  async function load(): Promise<void> {
    try {
      const r = await call<{ items: FeedbackItem[] }>('GET', '/api/feedback');
      if (gone) return;
      items = r.items;
      loadError = null;
    } catch (e) {
      if (gone) return;
      loadError = e;
    }
    renderBoard();
  }

  render();
  void load();
  return {
    el,
    relabel: render,
    destroy: () => {
      gone = true;
    },
  };
}

// ---------------------------------------------------------------- /admin

function storedSecret(): string {
  try {
    return sessionStorage.getItem(SECRET_KEY) ?? '';
  } catch {
    return '';
  }
}

function storeSecret(s: string | null): void {
  try {
    if (s) sessionStorage.setItem(SECRET_KEY, s);
    else sessionStorage.removeItem(SECRET_KEY);
  } catch {
    /* storage may be blocked: the key then lasts as long as the page */
  }
}

interface Draft {
  status: FeedbackStatus;
  reply: string;
}

export function adminScreen(): Screen {
  let secret = storedSecret();
  let items: FeedbackItem[] | null = null;
  let recs: AdminRecommendation[] = [];
  let signError = '';
  let loading = false;
  let gone = false;
  const drafts = new Map<number, Draft>();
  const notes = new Map<number, { ok: boolean; text: string }>();
  const views = new Map<number, HTMLLIElement>();
  const recNotes = new Map<number, { ok: boolean; text: string }>();
  const recViews = new Map<number, HTMLLIElement>();
  const el = h('div', { class: 'feedback admin', 'data-testid': 'admin' });
  const secretInput = h('input', {
    type: 'password',
    id: 'fb-secret',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'fb-secret-hint',
    'data-testid': 'admin-secret',
  });

  const draftOf = (i: FeedbackItem): Draft => drafts.get(i.id) ?? { status: i.status, reply: i.reply ?? '' };

  function signOut(message = ''): void {
    secret = '';
    storeSecret(null);
    items = null;
    recs = [];
    drafts.clear();
    notes.clear();
    recNotes.clear();
    signError = message;
    render();
  }

  function failed(e: unknown): string {
    const err = e as ApiError;
    if (err?.status === 401 || err?.code === 'unauthorized') return ft('wrongSecret');
    if (err?.status === 404) return ft('adminOff');
    return errorText(e);
  }

  async function load(key: string): Promise<void> {
    loading = true;
    render();
    try {
      const r = await call<{ items: FeedbackItem[] }>('GET', '/api/admin/feedback', undefined, key);
      // Only once the key is known good, so a wrong key counts once against the limit.
      const rr = await call<{ items: AdminRecommendation[] }>('GET', '/api/admin/recommendations', undefined, key);
      if (gone) return;
      secret = key;
      storeSecret(key);
      items = r.items;
      recs = rr.items;
      signError = '';
      secretInput.value = '';
    } catch (e) {
      if (gone) return;
      secret = '';
      storeSecret(null);
      items = null;
      signError = failed(e);
    }
    loading = false;
    render();
    if (items === null) secretInput.focus();
  }

  function loginView(): HTMLElement {
    const w = fbWords();
    const form = h(
      'form',
      { class: 'card', novalidate: true, 'aria-labelledby': 'fb-login-title', 'data-testid': 'admin-login' },
      h('h2', { id: 'fb-login-title' }, w.signIn),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'fb-secret' }, w.secretLabel),
        secretInput,
        h('div', { class: 'hint', id: 'fb-secret-hint' }, w.secretHint),
      ),
      h('p', { class: 'error', role: 'alert', 'data-testid': 'admin-error' }, signError),
      h('button', { type: 'submit', class: 'btn primary block', disabled: loading, 'data-testid': 'admin-sign-in' }, loading ? w.loading : w.signIn),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const key = secretInput.value.trim();
      if (!key) {
        signError = ft('needSecret');
        render();
        secretInput.focus();
        return;
      }
      void load(key);
    });
    return form;
  }

  async function update(id: number, body: Record<string, unknown>, focusTestid: string): Promise<void> {
    const li = views.get(id);
    li?.querySelectorAll('button').forEach((b) => (b.disabled = true));
    try {
      const r = await call<{ item: FeedbackItem }>('POST', `/api/admin/feedback/${id}`, body, secret);
      if (gone) return;
      items = (items ?? []).map((i) => (i.id === id ? r.item : i));
      drafts.delete(id);
      notes.set(id, { ok: true, text: ft('saved') });
    } catch (e) {
      if (gone) return;
      if ((e as ApiError)?.status === 401) {
        signOut(ft('wrongSecret'));
        return;
      }
      notes.set(id, { ok: false, text: failed(e) });
    }
    const item = items?.find((i) => i.id === id);
    const old = views.get(id);
    if (!item || !old) return;
    const fresh = adminItem(item);
    old.replaceWith(fresh);
    fresh.querySelector<HTMLElement>(`[data-testid="${focusTestid}"]`)?.focus();
  }

  function adminItem(item: FeedbackItem): HTMLLIElement {
    const w = fbWords();
    const d = draftOf(item);
    const li = itemView(item, 'admin-item');
    const sid = `fb-status-${item.id}`;
    const rid = `fb-reply-${item.id}`;
    const select = h(
      'select',
      { id: sid, 'data-testid': 'admin-status' },
      STATUSES.map((s) => h('option', { value: s, selected: s === d.status }, w.statuses[s])),
    );
    select.value = d.status;
    const reply = h('textarea', { id: rid, maxlength: TEXT_MAX, rows: 3, 'data-testid': 'admin-reply' });
    reply.value = d.reply;
    const keep = () => drafts.set(item.id, { status: select.value as FeedbackStatus, reply: reply.value });
    select.addEventListener('change', keep);
    reply.addEventListener('input', keep);
    const save = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'admin-save' }, w.save);
    save.addEventListener('click', () => {
      const body: Record<string, unknown> = {};
      if (select.value !== item.status) body.status = select.value;
      if (reply.value.trim() !== (item.reply ?? '')) body.reply = reply.value.trim();
      if (!Object.keys(body).length) body.status = select.value;
      void update(item.id, body, 'admin-save');
    });
    const toggle = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'admin-hide', 'data-hidden': String(item.hidden) },
      item.hidden ? w.show : w.hide,
    );
    toggle.addEventListener('click', () => void update(item.id, { hidden: !item.hidden }, 'admin-hide'));
    const note = notes.get(item.id);
    li.append(
      h(
        'div',
        { class: 'fb-admin-edit' },
        item.hidden ? h('p', { class: 'muted', 'data-testid': 'admin-hidden-mark' }, h('b', null, w.hiddenMark)) : null,
        h('div', { class: 'field' }, h('label', { for: sid }, w.statusLabel), select),
        h('div', { class: 'field' }, h('label', { for: rid }, w.replyLabel), reply),
        h('div', { class: 'row' }, save, toggle),
        h('p', { class: 'fb-note', role: 'status', 'data-testid': 'admin-note', 'data-ok': note ? String(note.ok) : null }, note?.text ?? ''),
      ),
    );
    views.set(item.id, li);
    return li;
  }

  async function setRecHidden(id: number, hidden: boolean): Promise<void> {
    recViews.get(id)?.querySelectorAll('button').forEach((b) => (b.disabled = true));
    try {
      const r = await call<{ id: number; hidden: boolean }>('POST', `/api/admin/recommendations/${id}`, { hidden }, secret);
      if (gone) return;
      recs = recs.map((x) => (x.id === id ? { ...x, hidden: r.hidden } : x));
      recNotes.set(id, { ok: true, text: ft('saved') });
    } catch (e) {
      if (gone) return;
      if ((e as ApiError)?.status === 401) {
        signOut(ft('wrongSecret'));
        return;
      }
      recNotes.set(id, { ok: false, text: failed(e) });
    }
    const rec = recs.find((x) => x.id === id);
    const old = recViews.get(id);
    if (!rec || !old) return;
    const fresh = recItem(rec);
    old.replaceWith(fresh);
    fresh.querySelector<HTMLElement>(`[data-testid="admin-rec-hide-${id}"]`)?.focus();
  }

  // One recommendation: its stars, date, writer, table and language, the words as text, and
  // the button that hides it from the home and learn pages or shows it again.
  function recItem(rec: AdminRecommendation): HTMLLIElement {
    const w = fbWords();
    const toggle = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': `admin-rec-hide-${rec.id}`, 'data-hidden': String(rec.hidden) },
      rec.hidden ? w.recShow : w.recHide,
      h('span', { class: 'visually-hidden' }, ft('recWhose', { name: rec.name, code: rec.code })),
    );
    toggle.addEventListener('click', () => void setRecHidden(rec.id, !rec.hidden));
    const note = recNotes.get(rec.id);
    const li = h(
      'li',
      { class: 'fb-item', 'data-testid': `admin-rec-${rec.id}`, 'data-id': String(rec.id), 'data-hidden': String(rec.hidden) },
      h(
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
      ),
      rec.text
        ? h('p', { class: 'fb-text', 'data-testid': 'admin-rec-text', lang: rec.lang && rec.lang !== lang() ? rec.lang : null }, rec.text)
        : null,
      h(
        'div',
        { class: 'fb-admin-edit' },
        rec.hidden ? h('p', { class: 'muted', 'data-testid': 'admin-rec-hidden-mark' }, h('b', null, w.recHiddenMark)) : null,
        h('div', { class: 'row' }, toggle),
        h('p', { class: 'fb-note', role: 'status', 'data-testid': 'admin-rec-note', 'data-ok': note ? String(note.ok) : null }, note?.text ?? ''),
      ),
    );
    recViews.set(rec.id, li);
    return li;
  }

  function listView(list: FeedbackItem[]): HTMLElement[] {
    const w = fbWords();
    const out = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'admin-sign-out' }, w.signOut);
    out.addEventListener('click', () => signOut());
    views.clear();
    recViews.clear();
    return [
      h(
        'div',
        { class: 'row' },
        link('/feedback', { class: 'btn quiet', 'data-testid': 'admin-to-board' }, w.toBoard),
        out,
      ),
      h('p', { class: 'muted', 'data-testid': 'admin-count' }, ft('itemsCount', { n: list.length })),
      h('ul', { class: 'fb-items', 'data-testid': 'admin-items' }, list.map(adminItem)),
      // The server lists them newest first.
      h(
        'section',
        { 'aria-labelledby': 'fb-recs-title', 'data-testid': 'admin-recs' },
        h('h2', { id: 'fb-recs-title' }, w.recsTitle),
        h('p', { class: 'muted' }, w.recsIntro),
        h('p', { class: 'muted', 'data-testid': 'admin-rec-count' }, recs.length ? ft('recsCount', { n: recs.length }) : w.recsEmpty),
        h('ul', { class: 'fb-items', 'data-testid': 'admin-rec-items' }, recs.map(recItem)),
      ),
    ];
  }

  function render(): void {
    const w = fbWords();
    el.dataset.lang = lang();
    replace(
      el,
      h('h1', null, w.adminTitle),
      h('p', { class: 'lead' }, w.adminIntro),
      items === null ? loginView() : listView(items),
    );
  }

  if (secret) void load(secret);
  else render();
  return {
    el,
    relabel: render,
    destroy: () => {
      gone = true;
    },
  };
}
