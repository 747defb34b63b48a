// Small shared pieces of the interface: navigation, the connection banner, toasts, dialogs.
import { h } from './dom';
import { messageText, type MessageRef, t } from './i18n';

/** "Watching: 3 (Noi, Dara)": how many watch a table, and the names they gave. */
export function watchingText(p: { spectators: number; watchers?: string[] }): string {
  const names = p.watchers ?? [];
  return names.length ? t('spectatorsNamed', { n: p.spectators, names: names.join(', ') }) : t('spectators', { n: p.spectators });
}

/**
 * A screen whose code is loaded when it is first opened: `host` shows `loading` until
 * `load` gives its module and `build` makes the screen from it (not once the screen is
 * left), or a network error if it cannot; a link to one section (`#id`) lands there once
 * the screen is built.
 */
export function lazyScreen<M>(host: HTMLElement, loading: string, load: () => Promise<M>, build: (mod: M) => Screen): Screen {
  host.replaceChildren(h('p', { class: 'muted', role: 'status' }, loading));
  let inner: Screen | null = null;
  let gone = false;
  load().then(
    (mod) => {
      if (gone) return;
      inner = build(mod);
      host.replaceChildren(inner.el);
      if (location.hash.length > 1) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
    },
    () => {
      if (!gone) host.replaceChildren(h('p', { class: 'error', role: 'alert' }, t('networkError')));
    },
  );
  return {
    el: host,
    relabel: () => inner?.relabel?.(),
    destroy: () => {
      gone = true;
      inner?.destroy?.();
    },
  };
}

export interface Screen {
  el: HTMLElement;
  /** Re-render texts after a language change (else the screen is rebuilt). */
  relabel?(): void;
  destroy?(): void;
  wide?: boolean;
}

let navHandler: (path: string, replace: boolean) => void = () => {};
export function setNavigator(f: (path: string, replace: boolean) => void): void {
  navHandler = f;
}
export function navigate(path: string, replace = false): void {
  navHandler(path, replace);
}

/** A link that navigates inside the app. */
export function link(href: string, attrs: Record<string, unknown>, ...children: (string | Node)[]): HTMLAnchorElement {
  const a = h('a', { href, ...attrs }, ...children);
  a.addEventListener('click', (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(href);
  });
  return a;
}

export const connBanner = h('div', { class: 'conn-banner', role: 'status', 'aria-live': 'polite', 'data-testid': 'conn' });
export function setConnBanner(text: string | null): void {
  connBanner.textContent = text ?? '';
  connBanner.classList.toggle('show', !!text);
  connBanner.dataset.state = text ? 'offline' : 'online';
}

let toastEl: HTMLElement | null = null;
let toastTimer: number | undefined;
export function toast(text: string): void {
  if (!toastEl) {
    toastEl = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
    document.body.appendChild(toastEl);
  }
  toastEl.textContent = text;
  toastEl.classList.add('show');
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => toastEl?.classList.remove('show'), 2500);
}

/** Asks a yes/no question in a modal dialog. */
export function confirmDialog(question: string, yes: string, testid: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dlg = h('dialog', { 'data-testid': testid });
    const done = (v: boolean) => {
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    dlg.append(
      h('p', null, question),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'btn quiet', 'data-testid': `${testid}-no`, onclick: () => done(false) }, t('cancel')),
        h('button', { type: 'button', class: 'btn primary', 'data-testid': `${testid}-yes`, onclick: () => done(true) }, yes),
      ),
    );
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.appendChild(dlg);
    dlg.showModal();
  });
}

/** LINE's documented share address for a page (its preview comes from the page's Open Graph tags). */
export function lineShare(url: string): string {
  return `https://social-plugins.line.me/lineit/share?url=${encodeURIComponent(url)}`;
}

/** What went wrong, in the reader's language: a table that is not there, or the server's
 * own reason when it gave one (an ApiError's answer with its message id), else a sentence
 * for the kind of failure. */
export function errorText(e: unknown): string {
  const err = e as { code?: string; status?: number; message?: string; data?: MessageRef };
  if (err?.code === 'network') return t('networkError');
  if (err?.code === 'not-found' || err?.status === 404) return t('notFound');
  if (err?.data?.msg) return messageText(err.data);
  if (err?.code === 'rate-limited' || err?.status === 429) return t('rateLimited');
  return t('error', { msg: err?.message ?? String(e) });
}

/** Whether the keyboard focus is nowhere in particular: on the page's body or its `main`
 * (as after the element that had it was taken away with the screen it was on). */
export function focusLost(): boolean {
  const a = document.activeElement;
  return !a || a === document.body || a.tagName === 'MAIN' || !a.isConnected;
}

/** Puts the focus on a screen's heading (or on `fallback` when it has none), as a screen
 * reader user expects after the page's content changed under them. */
export function focusHeading(within: HTMLElement, fallback?: HTMLElement): void {
  const target = within.querySelector<HTMLElement>('h1') ?? fallback;
  if (!target) return;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}

/** A segmented choice (one of a few buttons pressed), with its label: the forms' widget. */
export function seg<T extends string | number>(
  label: string,
  options: { value: T; text: string }[],
  get: () => T,
  set: (v: T) => void,
  testid: string,
): HTMLElement {
  const buttons = options.map((o) =>
    h(
      'button',
      { type: 'button', 'data-value': String(o.value), 'aria-pressed': String(o.value === get()) },
      o.text,
    ),
  );
  buttons.forEach((b, i) =>
    b.addEventListener('click', () => {
      set(options[i].value);
      buttons.forEach((x, j) => x.setAttribute('aria-pressed', String(j === i)));
    }),
  );
  const id = `lbl-${testid}`;
  return h(
    'div',
    { class: 'field' },
    h('div', { class: 'label', id }, label),
    h('div', { class: testid === 'cpu-level' ? 'seg levels' : 'seg', role: 'group', 'aria-labelledby': id, 'data-testid': testid }, buttons),
  );
}
