// The maintainers' page, /admin: they sign in with their key, then set each message's status,
// write a reply, or hide a message from the board; below, they hide or show the
// recommendations players wrote after a game (adminrecs.ts).
//
// The key is kept in this tab's sessionStorage only and goes in the Authorization header,
// never in a URL.
import type { ApiError } from '../shared/api';
import { h, replace } from '../shared/dom';
import { lang } from '../shared/i18n';
import { errorText, link, type Screen } from '../shared/ui';
import { type AdminRecommendation, type AdminSession, RecModeration } from './adminrecs';
import { call, type FeedbackItem, type FeedbackStatus, itemView, type Note, noteLine, TEXT_MAX } from './items';
import { fbWords, ft } from './text';

const STATUSES: FeedbackStatus[] = ['new', 'planned', 'done', 'wont'];
const SECRET_KEY = 'makruk.adminSecret';

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

/** What went wrong on this page, in words: a wrong key, the page switched off, or the shared texts. */
function failed(e: unknown): string {
  const err = e as ApiError;
  if (err?.status === 401 || err?.code === 'unauthorized') return ft('wrongSecret');
  if (err?.status === 404) return ft('adminOff');
  return errorText(e);
}

/** A message's status and reply as a maintainer is changing them, not saved yet. */
interface Draft {
  status: FeedbackStatus;
  reply: string;
}

/** The status picker and the reply box of one message, filled from its draft. */
function draftInputs(item: FeedbackItem, d: Draft): { select: HTMLSelectElement; reply: HTMLTextAreaElement } {
  const w = fbWords();
  const select = h(
    'select',
    { id: `fb-status-${item.id}`, 'data-testid': 'admin-status' },
    STATUSES.map((s) => h('option', { value: s, selected: s === d.status }, w.statuses[s])),
  );
  select.value = d.status;
  const reply = h('textarea', { id: `fb-reply-${item.id}`, maxlength: TEXT_MAX, rows: 3, 'data-testid': 'admin-reply' });
  reply.value = d.reply;
  return { select, reply };
}

/** What Save sends: what changed, or the status alone when nothing did. */
function changes(item: FeedbackItem, status: string, reply: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (status !== item.status) body.status = status;
  if (reply.trim() !== (item.reply ?? '')) body.reply = reply.trim();
  if (!Object.keys(body).length) body.status = status;
  return body;
}

class AdminPage implements AdminSession {
  readonly el = h('div', { class: 'feedback admin', 'data-testid': 'admin' });
  secret = storedSecret();
  gone = false;
  private items: FeedbackItem[] | null = null; // null: not signed in
  private signError = '';
  private loading = false;
  private readonly drafts = new Map<number, Draft>();
  private readonly notes = new Map<number, Note>();
  private readonly views = new Map<number, HTMLLIElement>();
  private readonly recs = new RecModeration(this);
  private readonly secretInput = h('input', {
    type: 'password',
    id: 'fb-secret',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'fb-secret-hint',
    'data-testid': 'admin-secret',
  });

  render(): void {
    const w = fbWords();
    this.el.dataset.lang = lang();
    replace(
      this.el,
      h('h1', null, w.adminTitle),
      h('p', { class: 'lead' }, w.adminIntro),
      this.items === null ? this.loginView() : this.listView(this.items),
    );
  }

  refused(e: unknown): string | null {
    if ((e as ApiError)?.status === 401) {
      this.signOut(ft('wrongSecret'));
      return null;
    }
    return failed(e);
  }

  private signOut(message = ''): void {
    this.secret = '';
    storeSecret(null);
    this.items = null;
    this.recs.clear();
    this.drafts.clear();
    this.notes.clear();
    this.signError = message;
    this.render();
  }

  /** Signs in with `key`: both lists, kept only once the server took the key. */
  async load(key: string): Promise<void> {
    this.loading = true;
    this.render();
    try {
      const r = await call<{ items: FeedbackItem[] }>('GET', '/api/admin/feedback', undefined, key);
      // Only once the key is known good, so a wrong key counts once against the limit.
      const rr = await call<{ items: AdminRecommendation[] }>('GET', '/api/admin/recommendations', undefined, key);
      if (this.gone) return;
      this.secret = key;
      storeSecret(key);
      this.items = r.items;
      this.recs.set(rr.items);
      this.signError = '';
      this.secretInput.value = '';
    } catch (e) {
      if (this.gone) return;
      this.secret = '';
      storeSecret(null);
      this.items = null;
      this.signError = failed(e);
    }
    this.loading = false;
    this.render();
    if (this.items === null) this.secretInput.focus();
  }

  private loginView(): HTMLElement {
    const w = fbWords();
    const form = h(
      'form',
      { class: 'card', novalidate: true, 'aria-labelledby': 'fb-login-title', 'data-testid': 'admin-login' },
      h('h2', { id: 'fb-login-title' }, w.signIn),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'fb-secret' }, w.secretLabel),
        this.secretInput,
        h('div', { class: 'hint', id: 'fb-secret-hint' }, w.secretHint),
      ),
      h('p', { class: 'error', role: 'alert', 'data-testid': 'admin-error' }, this.signError),
      h('button', { type: 'submit', class: 'btn primary block', disabled: this.loading, 'data-testid': 'admin-sign-in' }, this.loading ? w.loading : w.signIn),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const key = this.secretInput.value.trim();
      if (!key) {
        this.signError = ft('needSecret');
        this.render();
        this.secretInput.focus();
        return;
      }
      void this.load(key);
    });
    return form;
  }

  /** Signed in: the way back to the board and out, the messages, and the recommendations. */
  private listView(list: FeedbackItem[]): HTMLElement[] {
    const w = fbWords();
    const out = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'admin-sign-out' }, w.signOut);
    out.addEventListener('click', () => this.signOut());
    this.views.clear();
    return [
      h('div', { class: 'row' }, link('/feedback', { class: 'btn quiet', 'data-testid': 'admin-to-board' }, w.toBoard), out),
      h('p', { class: 'muted', 'data-testid': 'admin-count' }, ft('itemsCount', { n: list.length })),
      h('ul', { class: 'fb-items', 'data-testid': 'admin-items' }, list.map((item) => this.itemView(item))),
      this.recs.section(),
    ];
  }

  /** One message as the board shows it, with its status, reply, Save and Hide or Show below. */
  private itemView(item: FeedbackItem): HTMLLIElement {
    const w = fbWords();
    const li = itemView(item, 'admin-item');
    const { select, reply } = draftInputs(item, this.drafts.get(item.id) ?? { status: item.status, reply: item.reply ?? '' });
    const keep = () => this.drafts.set(item.id, { status: select.value as FeedbackStatus, reply: reply.value });
    select.addEventListener('change', keep);
    reply.addEventListener('input', keep);
    const save = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'admin-save' }, w.save);
    save.addEventListener('click', () => void this.update(item.id, changes(item, select.value, reply.value), 'admin-save'));
    const toggle = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'admin-hide', 'data-hidden': String(item.hidden) },
      item.hidden ? w.show : w.hide,
    );
    toggle.addEventListener('click', () => void this.update(item.id, { hidden: !item.hidden }, 'admin-hide'));
    li.append(
      h(
        'div',
        { class: 'fb-admin-edit' },
        item.hidden ? h('p', { class: 'muted', 'data-testid': 'admin-hidden-mark' }, h('b', null, w.hiddenMark)) : null,
        h('div', { class: 'field' }, h('label', { for: select.id }, w.statusLabel), select),
        h('div', { class: 'field' }, h('label', { for: reply.id }, w.replyLabel), reply),
        h('div', { class: 'row' }, save, toggle),
        noteLine(this.notes.get(item.id), 'admin-note'),
      ),
    );
    this.views.set(item.id, li);
    return li;
  }

  /** Sends one message's change, then draws it again with the note and the focus where it was. */
  private async update(id: number, body: Record<string, unknown>, focusTestid: string): Promise<void> {
    this.views.get(id)?.querySelectorAll('button').forEach((b) => (b.disabled = true));
    try {
      const r = await call<{ item: FeedbackItem }>('POST', `/api/admin/feedback/${id}`, body, this.secret);
      if (this.gone) return;
      this.items = (this.items ?? []).map((i) => (i.id === id ? r.item : i));
      this.drafts.delete(id);
      this.notes.set(id, { ok: true, text: ft('saved') });
    } catch (e) {
      if (this.gone) return;
      const text = this.refused(e);
      if (text === null) return;
      this.notes.set(id, { ok: false, text });
    }
    const item = this.items?.find((i) => i.id === id);
    const old = this.views.get(id);
    if (!item || !old) return;
    const fresh = this.itemView(item);
    old.replaceWith(fresh);
    fresh.querySelector<HTMLElement>(`[data-testid="${focusTestid}"]`)?.focus();
  }
}

export function adminScreen(): Screen {
  const page = new AdminPage();
  if (page.secret) void page.load(page.secret);
  else page.render();
  return {
    el: page.el,
    relabel: () => page.render(),
    destroy: () => {
      page.gone = true;
    },
  };
}
