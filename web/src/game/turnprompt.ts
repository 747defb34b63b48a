// "Tell me when it's my turn": at a turn-based table, after a player's first move, the
// offer to turn push notifications on for it; then what came of the answer.
import { h, replace } from '../shared/dom';
import { t } from '../shared/i18n';
import { enablePush, notNow, permission, setNotNow } from '../turns/push';

export class TurnPrompt {
  readonly el: HTMLElement = h('div', { class: 'notify-box', 'aria-live': 'polite' });
  private state: 'none' | 'asking' | 'working' | 'done' = 'none';
  private timer: number | undefined;

  constructor(private code: string) {}

  /** `asked`: a turn-based game this viewer plays, not over, after their first move. The
   * prompt shows while the browser has not been asked yet and "Not now" was not said here. */
  update(asked: boolean, over: boolean): void {
    if (this.state === 'working' || this.state === 'done') return;
    const want = asked && permission() === 'default' && !notNow(this.code);
    // once shown, the prompt stays until answered (or the game ends), even if permission
    // was given elsewhere meanwhile: [Turn on] then only subscribes
    const keep = this.state === 'asking' && !over && !notNow(this.code);
    if (!want && !keep) {
      if (this.state === 'asking') {
        this.state = 'none';
        replace(this.el);
      }
      return;
    }
    if (this.state === 'asking') return;
    this.state = 'asking';
    this.show();
  }

  relabel(): void {
    if (this.state === 'asking') this.show();
  }

  destroy(): void {
    window.clearTimeout(this.timer);
  }

  private show(): void {
    const on = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'notify-on' }, t('notifyOn'));
    const later = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'notify-not-now' }, t('notifyNotNow'));
    later.addEventListener('click', () => {
      setNotNow(this.code);
      this.state = 'done';
      replace(this.el);
    });
    on.addEventListener('click', () => void this.turnOn());
    replace(
      this.el,
      h(
        'div',
        { class: 'notify-prompt', 'data-testid': 'notify-prompt', role: 'group', 'aria-labelledby': 'notify-ask' },
        h('div', { class: 'np-text' }, h('b', { id: 'notify-ask' }, t('notifyAsk')), h('small', null, t('notifyAskSub'))),
        h('div', { class: 'row' }, on, later),
      ),
    );
  }

  private message(text: string, kind: 'ok' | 'fail'): void {
    replace(this.el, h('p', { class: `notify-msg ${kind}`, 'data-testid': 'notify-msg', 'data-kind': kind }, text));
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => replace(this.el), 12000);
  }

  private async turnOn(): Promise<void> {
    this.state = 'working';
    this.el.querySelectorAll('button').forEach((b) => ((b as HTMLButtonElement).disabled = true));
    const status = this.el.querySelector('small');
    if (status) status.textContent = t('notifyWorking');
    const r = await enablePush();
    this.state = 'done';
    if (r.result === 'on') this.message(t('notifyDone'), 'ok');
    else if (r.result === 'denied') this.message(t('notifyDenied'), 'fail');
    else this.message(t('notifyFailed'), 'fail');
    if (r.detail) this.el.dataset.detail = r.detail;
  }
}
