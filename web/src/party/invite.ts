// The invite: the code in large letters, the QR code, ways to share, the seats filling
// live, and Start for the host once two are in.
import { api, inviteLink, type Party } from '../shared/api';
import { clockRuleText } from '../shared/clock';
import { h, replace, setText } from '../shared/dom';
import { messageText, type MessageArg, t } from '../shared/i18n';
import { countdown, formatWhen } from '../shared/time';
import { lineShare, toast, watchingText } from '../shared/ui';

type Send = (m: Record<string, unknown>) => string | null;

export class InviteView {
  el: HTMLElement;
  private seatsEl: HTMLElement;
  private footEl: HTMLElement;
  private summaryEl: HTMLElement;
  private scheduleEl: HTMLElement;
  private whenEl: HTMLElement;
  private countdownEl: HTMLElement;
  private refusedEl: HTMLElement;
  private party: Party | null = null;
  private seat: number | null = null;
  private host = false;
  private timer: number | undefined;
  private startBtn: HTMLButtonElement | null = null;
  private startId: string | null = null;
  private footKey = '';
  // The party message that was current when the connection dropped: who it says is online is
  // old news until the server sends the next one.
  private stalePresence: Party | null = null;

  constructor(
    private code: string,
    private send: Send,
    private key?: string,
  ) {
    this.seatsEl = h('ul', { class: 'seats', 'data-testid': 'seats' });
    this.footEl = h('div', { class: 'invite-foot', style: { minHeight: '60px' } });
    this.summaryEl = h('p', { class: 'muted', style: { textAlign: 'center' }, 'data-testid': 'invite-summary' });
    this.whenEl = h('div', { class: 'when', 'data-testid': 'starts-at-text' });
    this.countdownEl = h('div', { class: 'countdown', 'data-testid': 'countdown', role: 'timer', 'aria-live': 'off' });
    this.scheduleEl = h('div', { class: 'card schedule', 'data-testid': 'schedule', hidden: true });
    this.refusedEl = h('p', { class: 'error', role: 'alert', 'data-testid': 'start-refused', style: { textAlign: 'center' } });
    this.el = h('div', { class: 'invite', 'data-testid': 'invite' });
    this.build();
  }

  private inviteUrl(): string {
    return inviteLink(this.code, this.key);
  }

  private build(): void {
    const url = this.inviteUrl();
    const shareRow = h('div', { class: 'row' });
    const nav = navigator as Navigator & { share?: (d: ShareData) => Promise<void> };
    if (typeof nav.share === 'function') {
      shareRow.append(
        h(
          'button',
          {
            type: 'button',
            class: 'btn primary',
            'data-testid': 'share',
            onclick: () => {
              nav.share!({ title: t('appName'), text: t('joinTitle', { code: this.code }), url }).catch(() => {});
            },
          },
          t('share'),
        ),
      );
    }
    shareRow.append(
      h(
        'a',
        {
          class: 'btn',
          'data-testid': 'share-line',
          href: lineShare(url),
          target: '_blank',
          rel: 'noopener noreferrer',
        },
        t('shareLine'),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn',
          'data-testid': 'copy-link',
          onclick: () => void this.copy(url),
        },
        t('copyLink'),
      ),
    );
    replace(
      this.el,
      h('h1', { style: { textAlign: 'center', marginBottom: '0' } }, t('tableCode')),
      h('div', { class: 'invite-code', 'data-testid': 'invite-code', 'aria-label': this.code.split('').join(' ') }, this.code),
      this.summaryEl,
      this.scheduleEl,
      // the seats and Start come first, so the host sees them without scrolling
      h('div', { class: 'card', 'aria-label': t('players') }, this.seatsEl),
      this.footEl,
      this.refusedEl,
      h('img', { class: 'qr', src: api.qrUrl(this.code, this.key), alt: t('qrAlt'), width: 240, height: 240, 'data-testid': 'qr' }),
      h('p', { class: 'muted', style: { textAlign: 'center' } }, t('inviteHint')),
      shareRow,
      h('input', { type: 'text', readonly: true, value: url, 'aria-label': t('copyLink'), 'data-testid': 'invite-url', style: { marginTop: '10px', fontSize: '15px' } }),
    );
  }

  private async copy(url: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(url);
      toast(t('copied'));
      return;
    } catch {
      /* fall back below */
    }
    const input = this.el.querySelector<HTMLInputElement>('[data-testid="invite-url"]');
    if (input) {
      input.select();
      try {
        document.execCommand('copy');
        toast(t('copied'));
      } catch {
        /* the link stays selected for the user to copy */
      }
    }
  }

  /** Before the scheduled start (by this device's clock). */
  private early(): boolean {
    const at = this.party?.startsAt;
    return typeof at === 'number' && at > Date.now();
  }

  private renderSchedule(): void {
    const p = this.party;
    const at = p?.startsAt;
    if (!p || typeof at !== 'number') {
      this.scheduleEl.hidden = true;
      window.clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.scheduleEl.hidden || !this.scheduleEl.firstChild) {
      this.scheduleEl.hidden = false;
      replace(
        this.scheduleEl,
        this.whenEl,
        this.countdownEl,
        h(
          'a',
          {
            class: 'btn',
            href: api.icsUrl(this.code),
            download: `makruk-${this.code}.ics`,
            'data-testid': 'ics',
          },
          t('addToCalendar'),
        ),
      );
    }
    this.whenEl.dataset.at = String(at);
    setText(this.whenEl, t('startsAtWhen', { when: formatWhen(at) }));
    this.tick();
    if (this.timer === undefined) this.timer = window.setInterval(() => this.tick(), 1000);
  }

  private tick(): void {
    const at = this.party?.startsAt;
    if (typeof at !== 'number') return;
    const left = at - Date.now();
    this.countdownEl.dataset.left = String(Math.max(0, left));
    setText(this.countdownEl, left > 0 ? t('startsIn', { time: countdown(left) }) : t('startsNow'));
    // the time has come: Start opens (the server still has the last word)
    if (left <= 0 && this.startBtn?.disabled && this.startId === null) this.renderFoot(true);
  }

  /** The server refused an intent (e.g. `start` before the time). */
  onRefused(e: { id?: string; error: string; code: string; msg?: string; args?: Record<string, MessageArg> }): void {
    if (this.startId === null || (e.id && e.id !== this.startId)) return;
    this.startId = null;
    const at = this.party?.startsAt;
    this.refusedEl.textContent = e.code === 'conflict' && typeof at === 'number' ? t('startRefused', { when: formatWhen(at) }) : messageText(e);
    if (this.startBtn) this.startBtn.disabled = false;
  }

  private renderFoot(force = false): void {
    const p = this.party;
    if (!p) return;
    const host = this.host;
    const early = this.early();
    const key = `${p.status}|${host}|${early}|${p.players.length}`;
    if (!force && key === this.footKey) return;
    this.footKey = key;
    this.startBtn = null;
    const foot: (HTMLElement | string)[] = [];
    if (p.status === 'expired') {
      foot.push(h('p', { class: 'notice', 'data-testid': 'table-expired' }, t(p.mode === 'turn' ? 'tableExpired' : 'tableExpiredLive')));
    } else if (host && p.status === 'ready') {
      const btn = h('button', { type: 'button', class: 'btn primary block', 'data-testid': 'start', disabled: early }, t('start'));
      btn.addEventListener('click', () => {
        btn.disabled = true;
        this.refusedEl.textContent = '';
        this.startId = this.send({ t: 'start' });
        if (this.startId === null) btn.disabled = false;
        window.setTimeout(() => {
          if (this.startBtn === btn) btn.disabled = this.early();
          this.startId = null;
        }, 3000);
      });
      this.startBtn = btn;
      foot.push(btn);
      if (early) foot.push(h('p', { class: 'muted', style: { textAlign: 'center', margin: '6px 0 0' }, 'data-testid': 'start-locked' }, t('startLocked')));
    } else {
      const full = p.players.length >= 2;
      foot.push(h('p', { class: 'muted', style: { textAlign: 'center' }, 'data-testid': 'invite-wait' }, full ? (host ? t('waitingStart') : t('waitingHost')) : t('waitingOpponent')));
    }
    replace(this.footEl, foot);
  }

  update(p: Party, seat: number | null, host: boolean): void {
    this.party = p;
    this.seat = seat;
    this.host = host;
    const summary = [
      p.variant === 'ouk' ? t('ouk') : t('makruk'),
      p.mode === 'turn' ? t('turnBased') : null,
      `${t('countStart')}: ${p.rules.counting === 'declare' ? t('countDeclare') : t('countAuto')}`,
      clockRuleText(p.rules.clock),
    ];
    this.summaryEl.textContent = summary.filter(Boolean).join(' · ');
    this.el.dataset.mode = p.mode ?? 'live';
    this.renderSchedule();
    const rows: HTMLElement[] = [];
    for (let s = 0; s < 2; s++) {
      const pl = p.players.find((x) => x.seat === s);
      if (!pl) {
        rows.push(h('li', { class: 'seat empty', 'data-seat': String(s) }, h('span', { class: 'dot' }), h('span', { class: 'name' }, t('emptySeat'))));
        continue;
      }
      rows.push(
        h(
          'li',
          { class: 'seat', 'data-seat': String(s), 'data-testid': `seat-${s}` },
          this.dot(pl.online || !!pl.cpu, !pl.cpu && p === this.stalePresence),
          h('span', { class: 'name' }, pl.name),
          pl.host ? h('span', { class: 'tag' }, t('hostMark')) : null,
          s === seat ? h('span', { class: 'tag' }, t('youMark')) : null,
        ),
      );
    }
    if (p.spectators > 0) rows.push(h('li', { class: 'seat muted', 'data-testid': 'watching' }, watchingText(p)));
    replace(this.seatsEl, rows);
    this.renderFoot();
  }

  private dot(online: boolean, unknown: boolean): HTMLElement {
    const presence = unknown ? 'unknown' : online ? 'on' : 'off';
    const title = unknown ? t('presenceUnknown') : online ? t('onlineMark') : t('offlineMark');
    return h('span', { class: `dot ${presence}`, 'data-presence': presence, title });
  }

  /** Told when the connection drops or comes back: while it is down, no dot claims to know. */
  setOnline(on: boolean): void {
    if (!on && this.party) {
      this.stalePresence = this.party;
      this.update(this.party, this.seat, this.host);
    }
  }

  relabel(): void {
    this.build();
    replace(this.scheduleEl);
    this.scheduleEl.hidden = true;
    this.footKey = '';
    this.refusedEl.textContent = '';
    if (this.party) this.update(this.party, this.seat, this.host);
  }

  destroy(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }
}
