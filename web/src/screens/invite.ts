// The invite: the code in large letters, the QR code, ways to share, the seats filling
// live, and Start for the host once two are in.
import { api, type Party } from '../api';
import { h, replace } from '../dom';
import { t } from '../i18n';
import { toast } from '../ui';

type Send = (m: Record<string, unknown>) => string | null;

export class InviteView {
  el: HTMLElement;
  private seatsEl: HTMLElement;
  private footEl: HTMLElement;
  private summaryEl: HTMLElement;
  private party: Party | null = null;
  private seat: number | null = null;
  private host = false;

  constructor(
    private code: string,
    private send: Send,
  ) {
    this.seatsEl = h('ul', { class: 'seats', 'data-testid': 'seats' });
    this.footEl = h('div', { class: 'invite-foot', style: { minHeight: '60px' } });
    this.summaryEl = h('p', { class: 'muted', style: { textAlign: 'center' } });
    this.el = h('div', { class: 'invite', 'data-testid': 'invite' });
    this.build();
  }

  private inviteUrl(): string {
    return `${location.origin}/p/${this.code}`;
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
          href: `https://social-plus.line.me/lineit/share?url=${encodeURIComponent(url)}`,
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
      // the seats and Start come first, so the host sees them without scrolling
      h('div', { class: 'card', 'aria-label': t('players') }, this.seatsEl),
      this.footEl,
      h('img', { class: 'qr', src: api.qrUrl(this.code), alt: t('qrAlt'), width: 240, height: 240, 'data-testid': 'qr' }),
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

  update(p: Party, seat: number | null, host: boolean): void {
    this.party = p;
    this.seat = seat;
    this.host = host;
    this.summaryEl.textContent = `${p.variant === 'ouk' ? t('ouk') : t('makruk')} · ${t('countStart')}: ${
      p.rules.counting === 'declare' ? t('countDeclare') : t('countAuto')
    }`;
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
          h('span', { class: `dot${pl.online || pl.cpu ? ' on' : ''}`, title: pl.online ? t('onlineMark') : t('offlineMark') }),
          h('span', { class: 'name' }, pl.name),
          pl.host ? h('span', { class: 'tag' }, t('hostMark')) : null,
          s === seat ? h('span', { class: 'tag' }, t('youMark')) : null,
        ),
      );
    }
    if (p.spectators > 0) rows.push(h('li', { class: 'seat muted' }, t('spectators', { n: p.spectators })));
    replace(this.seatsEl, rows);

    const foot: (HTMLElement | string)[] = [];
    if (host && p.status === 'ready') {
      const btn = h('button', { type: 'button', class: 'btn primary block', 'data-testid': 'start' }, t('start'));
      btn.addEventListener('click', () => {
        btn.disabled = true;
        if (this.send({ t: 'start' }) === null) btn.disabled = false;
        window.setTimeout(() => (btn.disabled = false), 3000);
      });
      foot.push(btn);
    } else {
      const full = p.players.length >= 2;
      foot.push(h('p', { class: 'muted', style: { textAlign: 'center' }, 'data-testid': 'invite-wait' }, full ? (host ? t('waitingStart') : t('waitingHost')) : t('waitingOpponent')));
    }
    replace(this.footEl, foot);
  }

  relabel(): void {
    this.build();
    if (this.party) this.update(this.party, this.seat, this.host);
  }
}
