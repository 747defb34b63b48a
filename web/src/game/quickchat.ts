// Quick messages between the players: a fixed set of phrases (no free text, so
// nothing to moderate), each shown in the reader's own language, in a bubble on
// the sender's player bar. A player may hide the other's messages at a table.
import { h, replace } from '../shared/dom';
import { t, type StringKey } from '../shared/i18n';

export const PHRASES = [
  'hello',
  'good-luck',
  'your-turn',
  'one-moment',
  'oops',
  'wow',
  'smile',
  'well-played',
  'thanks',
  'good-game',
  'rematch',
  'bye',
] as const;
export type Phrase = (typeof PHRASES)[number];

export function phraseText(p: string): string {
  const key = `phrase_${p.replace(/-/g, '_')}` as StringKey;
  return (PHRASES as readonly string[]).includes(p) ? t(key) : '';
}

const QUIET_KEY = (code: string) => `makruk.quiet.${code}`;

export class QuickChat {
  el: HTMLElement;
  private panel: HTMLElement;
  private toggle: HTMLButtonElement;
  private quiet: HTMLInputElement;
  private bubbles = new Map<HTMLElement, number>();

  constructor(
    private code: string,
    private send: (phrase: Phrase) => void,
  ) {
    this.toggle = h('button', {
      type: 'button',
      class: 'btn quiet chat-toggle',
      'aria-expanded': 'false',
      'aria-controls': `chat-${code}`,
      'data-testid': 'chat-toggle',
    });
    this.toggle.addEventListener('click', () => this.open(this.panel.hidden));
    this.quiet = h('input', { type: 'checkbox', role: 'switch', 'data-testid': 'chat-quiet' });
    this.quiet.checked = this.isQuiet();
    this.quiet.addEventListener('change', () => {
      try {
        if (this.quiet.checked) localStorage.setItem(QUIET_KEY(this.code), '1');
        else localStorage.removeItem(QUIET_KEY(this.code));
      } catch {
        /* ignore */
      }
    });
    this.panel = h('div', { class: 'chat-panel', id: `chat-${code}`, hidden: true, 'data-testid': 'chat-panel' });
    this.el = h('div', { class: 'chat' }, this.toggle, this.panel);
    this.relabel();
  }

  relabel(): void {
    this.toggle.textContent = t('quickMessages');
    const buttons = PHRASES.map((p) => {
      const b = h('button', { type: 'button', class: 'chat-phrase', 'data-phrase': p, 'data-testid': `phrase-${p}` }, phraseText(p));
      b.addEventListener('click', () => {
        this.send(p);
        this.open(false);
      });
      return b;
    });
    replace(this.panel, h('div', { class: 'chat-phrases' }, buttons), h('label', { class: 'toggle' }, h('span', null, t('hideMessages')), this.quiet));
  }

  private open(on: boolean): void {
    this.panel.hidden = !on;
    this.toggle.setAttribute('aria-expanded', String(on));
  }

  isQuiet(): boolean {
    try {
      return localStorage.getItem(QUIET_KEY(this.code)) === '1';
    } catch {
      return false;
    }
  }

  /** Shows a phrase in a bubble on a player's bar for a few seconds. */
  bubble(bar: HTMLElement, phrase: string): void {
    const text = phraseText(phrase);
    if (!text) return;
    bar.querySelector('.chat-bubble')?.remove();
    window.clearTimeout(this.bubbles.get(bar));
    bar.append(h('span', { class: 'chat-bubble', 'data-testid': 'chat-bubble', 'data-phrase': phrase }, text));
    this.bubbles.set(
      bar,
      window.setTimeout(() => bar.querySelector('.chat-bubble')?.remove(), 5000),
    );
  }
}
