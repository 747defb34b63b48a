// The feedback board, /feedback: a short form (what kind of message, the text with a
// character counter, an optional name, the table it is about when it came from a game) and
// below it the public board: every message with its kind, status, date, text and the
// maintainers' reply (items.ts draws each). The maintainers' page is admin.ts.
import { lastName, NAME_MAX, saveName } from '../shared/api';
import { h, replace } from '../shared/dom';
import { lang } from '../shared/i18n';
import { seg, type Screen } from '../shared/ui';
import { call, type FeedbackItem, itemView, problem, TEXT_MAX } from './items';
import { fbWords, ft, type FeedbackKind } from './text';

const chars = (s: string) => [...s].length;

/** The form's fields, made once so that what was typed survives a change of language. */
interface Fields {
  text: HTMLTextAreaElement;
  counter: HTMLElement;
  name: HTMLInputElement;
  error: HTMLElement;
  sent: HTMLElement;
  send: HTMLButtonElement;
}

function makeFields(): Fields {
  const text = h('textarea', {
    id: 'fb-text',
    maxlength: TEXT_MAX,
    rows: 6,
    'aria-describedby': 'fb-text-hint fb-counter',
    'data-testid': 'fb-text-input',
  });
  const counter = h('div', { class: 'fb-counter', id: 'fb-counter', 'data-testid': 'fb-counter' });
  const name = h('input', {
    type: 'text',
    id: 'fb-name',
    maxlength: NAME_MAX,
    autocomplete: 'nickname',
    value: lastName(),
    'data-testid': 'fb-name-input',
  });
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'fb-error' });
  const sent = h('p', { class: 'fb-sent', role: 'status', 'data-testid': 'fb-sent' });
  const send = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': 'fb-send' });
  const fields = { text, counter, name, error, sent, send };
  text.addEventListener('input', () => {
    countChars(fields);
    if (text.value.trim()) error.textContent = '';
  });
  return fields;
}

/** "n / 2000 characters" under the text, marked when full. */
function countChars(f: Fields): void {
  const n = f.text.value.length;
  f.counter.textContent = ft('counter', { n, max: TEXT_MAX });
  f.counter.dataset.full = String(n >= TEXT_MAX);
}

/** Why the message cannot be sent as it is and the field to fix, or null when it can. */
function whatIsWrong(text: string, name: string): { text: string; field: 'text' | 'name' } | null {
  if (!text) return { text: ft('needText'), field: 'text' };
  if (chars(text) > TEXT_MAX) return { text: ft('tooLong', { max: TEXT_MAX }), field: 'text' };
  if (chars(name) > NAME_MAX) return { text: ft('badName', { max: NAME_MAX }), field: 'name' };
  return null;
}

/** The page's address without `?table=`, so that a reload no longer attaches the table. */
function dropTableFromAddress(): void {
  const q = new URLSearchParams(location.search);
  q.delete('table');
  const s = q.toString();
  history.replaceState(null, '', `/feedback${s ? `?${s}` : ''}`);
}

/** "About table CODE" with a button that takes the table off the message. */
function tableChip(code: string, removed: () => void, focusAfter: HTMLElement): HTMLElement {
  const remove = h(
    'button',
    { type: 'button', class: 'btn quiet', 'data-testid': 'fb-table-remove' },
    ft('removeTable'),
    h('span', { class: 'visually-hidden' }, ft('removeTableMore', { code })),
  );
  remove.addEventListener('click', () => {
    removed();
    dropTableFromAddress();
    chip.remove();
    focusAfter.focus();
  });
  const chip = h('div', { class: 'fb-table', 'data-testid': 'fb-table-chip' }, h('span', null, ft('aboutTable', { code })), remove);
  return chip;
}

/** What kind of message: feedback, a bug or a setting request. */
function kindField(get: () => FeedbackKind, set: (v: FeedbackKind) => void): HTMLElement {
  const w = fbWords();
  return seg(
    w.kindLabel,
    [
      { value: 'feedback' as FeedbackKind, text: w.kindFeedback },
      { value: 'bug' as FeedbackKind, text: w.kindBug },
      { value: 'setting' as FeedbackKind, text: w.kindSetting },
    ],
    get,
    set,
    'fb-kind',
  );
}

/** The form around the fields, in the page's language; the chip when a table is attached. */
function formView(f: Fields, kind: HTMLElement, chip: HTMLElement | null, submit: () => void): HTMLFormElement {
  const w = fbWords();
  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-labelledby': 'fb-form-title', 'data-testid': 'feedback-form' },
    h('h2', { id: 'fb-form-title' }, w.formTitle),
    kind,
    chip,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'fb-text' }, w.textLabel),
      f.text,
      f.counter,
      h('div', { class: 'hint', id: 'fb-text-hint' }, w.textHint),
    ),
    h('div', { class: 'field' }, h('label', { for: 'fb-name' }, w.nameLabel), f.name),
    f.error,
    f.send,
    f.sent,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  return form;
}

/** The public board under the form: a line that says it loads, failed or is empty, and the messages. */
class BoardList {
  readonly status: HTMLElement = h('p', { class: 'muted', role: 'status', 'data-testid': 'fb-board-status' });
  readonly list: HTMLElement = h('ul', { class: 'fb-items', 'data-testid': 'fb-items' });

  /** The section with its heading, made again in each language; the line and the list stay. */
  section(): HTMLElement {
    return h(
      'section',
      { id: 'feedback-board', 'aria-labelledby': 'fb-board-title', 'data-testid': 'feedback-board' },
      h('h2', { id: 'fb-board-title' }, fbWords().boardTitle),
      this.status,
      this.list,
    );
  }

  draw(items: FeedbackItem[] | null, loadError: unknown): void {
    if (items === null) {
      this.status.textContent = loadError ? problem(loadError) : ft('loading');
      this.status.className = loadError ? 'error' : 'muted';
      this.list.replaceChildren();
      return;
    }
    this.status.className = 'muted';
    this.status.textContent = items.length ? '' : ft('boardEmpty');
    this.list.replaceChildren(...items.map((i) => itemView(i)));
  }
}

class FeedbackPage {
  readonly el = h('div', { class: 'feedback', 'data-testid': 'feedback' });
  gone = false;
  private items: FeedbackItem[] | null = null;
  private loadError: unknown = null;
  private sending = false;
  private readonly fields = makeFields();
  private readonly board = new BoardList();

  constructor(
    private kind: FeedbackKind,
    private table: string | null,
  ) {}

  render(): void {
    const w = fbWords();
    const f = this.fields;
    this.el.dataset.lang = lang();
    f.name.placeholder = w.namePlaceholder;
    f.send.textContent = this.sending ? w.sending : w.send;
    countChars(f);
    const kind = kindField(() => this.kind, (v) => (this.kind = v));
    const chip = this.table ? tableChip(this.table, () => (this.table = null), f.text) : null;
    const form = formView(f, kind, chip, () => void this.send());
    replace(this.el, h('h1', null, w.title), h('p', { class: 'lead' }, w.intro), form, this.board.section());
    this.board.draw(this.items, this.loadError);
  }

  async send(): Promise<void> {
    if (this.sending) return;
    const f = this.fields;
    f.sent.textContent = '';
    const text = f.text.value.trim();
    const name = f.name.value.trim();
    const wrong = whatIsWrong(text, name);
    if (wrong) {
      f.error.textContent = wrong.text;
      (wrong.field === 'name' ? f.name : f.text).focus();
      return;
    }
    f.error.textContent = '';
    this.sending = true;
    f.send.disabled = true;
    f.send.textContent = ft('sending');
    try {
      const r = await call<{ item: FeedbackItem }>('POST', '/api/feedback', {
        kind: this.kind,
        text,
        lang: lang(),
        ...(name ? { name } : {}),
        ...(this.table ? { table: this.table } : {}),
      });
      if (this.gone) return;
      if (name) saveName(name);
      f.text.value = '';
      countChars(f);
      this.items = [r.item, ...(this.items ?? []).filter((i) => i.id !== r.item.id)];
      this.loadError = null;
      this.board.draw(this.items, this.loadError);
      f.sent.textContent = ft('sent');
    } catch (e) {
      if (this.gone) return;
      f.error.textContent = problem(e);
    } finally {
      this.sending = false;
      f.send.disabled = false;
      f.send.textContent = ft('send');
    }
  }

  async load(): Promise<void> {
    try {
      const r = await call<{ items: FeedbackItem[] }>('GET', '/api/feedback');
      if (this.gone) return;
      this.items = r.items;
      this.loadError = null;
    } catch (e) {
      if (this.gone) return;
      this.loadError = e;
    }
    this.board.draw(this.items, this.loadError);
  }
}

export function feedbackScreen(startKind: FeedbackKind, startTable: string | null): Screen {
  const page = new FeedbackPage(startKind, startTable);
  page.render();
  void page.load();
  return {
    el: page.el,
    relabel: () => page.render(),
    destroy: () => {
      page.gone = true;
    },
  };
}
