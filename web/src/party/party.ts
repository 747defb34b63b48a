// /p/CODE: the join prompt, the invite (seats filling live) and the game, over one
// WebSocket connection to the party.
import {
  api,
  forgetSeat,
  lastName,
  saveName,
  saveSeat,
  savedSeat,
  type GameState,
  type Party,
} from '../shared/api';
import { clockRuleText } from '../shared/clock';
import { Conn, type ServerError, type Welcome } from '../shared/conn';
import { h, replace } from '../shared/dom';
import { messageText, t } from '../shared/i18n';
import { onPushMessage, resendSubscription } from '../turns/push';
import { errorText, focusHeading, focusLost, link, navigate, setConnBanner, toast, type Screen } from '../shared/ui';
import { lastWish, lobby, type SeekWish } from '../lobby/lobby';
import { formatWhen } from '../shared/time';
import { nameField } from '../shared/namefield';
import { GameView } from '../game/game';
import { InviteView } from './invite';
import { lookUpCode } from '../shared/proof';

// arriving: a table from "find an opponent" whose other player has not come yet;
// unpaired: its pairing ended before the game began (declined, or nobody came).
type Mode = 'loading' | 'checking' | 'prompt' | 'invite' | 'game' | 'missing' | 'limited' | 'arriving' | 'unpaired';

export class PartyScreen implements Screen {
  el: HTMLElement;
  wide = false;
  private mode: Mode = 'loading';
  private conn: Conn | null = null;
  private seat: number | null = null;
  private host = false;
  private welcomed = false;
  private party: Party | null = null;
  private state: GameState | null = null;
  private invite: InviteView | null = null;
  private game: GameView | null = null;
  private promptParty: Party | null = null;
  private destroyed = false;
  private resent = false;
  private offPush: () => void;
  /** The invite link's key (`?k=`): with it, opening the table is no guess at its code. */
  private key: string | undefined;
  private arrivalTimer: number | undefined;

  constructor(private code: string) {
    this.el = h('div', { class: 'party', 'data-testid': 'party', 'data-code': code });
    this.key = new URLSearchParams(location.search).get('k') || undefined;
    const saved = savedSeat(code);
    if (saved) {
      this.connect(saved.token);
    } else {
      this.loadPrompt();
    }
    this.render();
    // A push about this table (the service worker tells open pages): make sure we are current.
    this.offPush = onPushMessage((m) => {
      if (m.code === this.code) this.conn?.sync();
    });
    // Expose a little for the browser tests (no secrets: the token is in localStorage anyway).
    (window as unknown as Record<string, unknown>).__makruk = {
      drop: () => this.conn?.dropForTest(),
      state: () => this.state,
      party: () => this.party,
      seat: () => this.seat,
    };
  }

  private async loadPrompt(): Promise<void> {
    this.mode = 'loading';
    this.render();
    try {
      const party = await lookUpCode(
        this.code,
        this.key,
        () => {
          // A code typed by hand while this network is limited for wrong codes.
          this.mode = 'checking';
          this.render();
        },
        () => this.destroyed,
      );
      if (this.destroyed) return;
      this.promptParty = party;
      this.mode = 'prompt';
    } catch (e) {
      if (this.destroyed) return;
      const err = e as { status?: number; code?: string };
      if (err.status === 404 || err.code === 'not-found') this.mode = 'missing';
      else if (err.status === 429 || err.code === 'rate-limited') this.mode = 'limited';
      else this.mode = 'prompt';
      if (this.mode === 'prompt') toast(errorText(e));
    }
    this.render();
  }

  private connect(token: string | undefined, spectatorName?: string): void {
    this.conn?.close();
    this.welcomed = false;
    setConnBanner(t('connecting'));
    this.conn = new Conn(this.code, token, {
      welcome: (w: Welcome) => {
        this.welcomed = true;
        this.seat = w.seat ?? null;
        this.host = !!w.host;
        const saved = savedSeat(this.code);
        if (saved && saved.seat !== this.seat) saveSeat(this.code, { ...saved, seat: this.seat });
      },
      party: (p: Party) => {
        this.party = p;
        this.update();
      },
      state: (s: GameState) => {
        if (this.state && s.game < this.state.game) return; // an older game's late message
        this.state = s;
        this.update();
      },
      error: (e: ServerError) => this.onServerError(e),
      said: (seat: number, phrase: string) => this.game?.onSaid(seat, phrase),
      status: (online: boolean) => {
        setConnBanner(online ? null : t('offline'));
        this.game?.setOnline(online);
        this.invite?.setOnline(online);
      },
    }, { key: this.key ?? this.party?.key ?? this.promptParty?.key, name: spectatorName });
  }

  private onServerError(e: ServerError): void {
    if (!this.welcomed) {
      if (e.code === 'not-found') {
        this.conn?.close();
        this.conn = null;
        setConnBanner(null);
        this.mode = 'missing';
        this.render();
        return;
      }
      if (e.code === 'forbidden' || e.code === 'bad-request') {
        // The saved token is not (or no longer) valid here: ask for a name again.
        forgetSeat(this.code);
        this.conn?.close();
        this.conn = null;
        setConnBanner(null);
        void this.loadPrompt();
        return;
      }
    }
    if (this.mode === 'invite' && this.invite) this.invite.onRefused(e);
    if (e.code === 'conflict') return; // the connection resyncs by itself (the invite said why)
    this.game?.onError(e);
    toast(messageText(e));
  }

  private update(): void {
    if (!this.party) return;
    // Opening a turn-based table where this browser holds a seat: when notifications are on,
    // send the subscription again with every table, so this one is covered too.
    if (!this.resent && this.welcomed && this.seat !== null && this.party.mode === 'turn') {
      this.resent = true;
      void resendSubscription();
    }
    const pairing = this.party.pairing;
    const calledOff = pairing?.ended === 'no-move';
    const wantGame = this.party.game !== null && this.state !== null && !calledOff;
    // A table whose game has begun shows no invite (nor loads its QR code) while the
    // game's state is on its way: the server sends it right after the party.
    if (!wantGame && !calledOff && this.party.game !== null && this.mode !== 'invite') return;
    const mode: Mode = wantGame ? 'game' : pairing?.arriveBy ? 'arriving' : pairing?.ended ? 'unpaired' : 'invite';
    // Seen live: the opponent made no first move, so this player goes back to the front of the queue.
    if (calledOff && this.mode === 'game' && this.backToFront()) return;
    if (mode !== this.mode) {
      this.mode = mode;
      this.render();
    }
    if (this.mode === 'invite') this.invite?.update(this.party, this.seat, this.host);
    if (this.mode === 'game' && this.state) this.game?.update(this.party, this.state, this.seat);
  }

  private render(): void {
    if (this.invite && (this.mode !== 'invite' || !this.el.contains(this.invite.el))) {
      this.invite.destroy();
      this.invite = null;
    }
    if (this.mode !== 'game' && this.game) {
      this.game.destroy();
      this.game = null;
    }
    window.clearInterval(this.arrivalTimer);
    this.arrivalTimer = undefined;
    this.el.classList.toggle('in-game', this.mode === 'game');
    this.wide = this.mode === 'game';
    this.el.closest('main')?.classList.toggle('wide', this.wide);
    switch (this.mode) {
      case 'loading':
        replace(this.el, h('p', { class: 'muted' }, t('connecting')));
        break;
      case 'checking':
        replace(this.el, h('p', { class: 'muted', role: 'status', 'data-testid': 'checking-code' }, t('checkingCode')));
        break;
      case 'missing':
        replace(
          this.el,
          h('h1', null, t('joinTitle', { code: this.code })),
          h('p', { class: 'error', 'data-testid': 'missing' }, t('notFound')),
          link('/', { class: 'btn primary block' }, t('home')),
        );
        break;
      case 'limited': {
        // A bare code while the address is limited for wrong codes: say why, and what works.
        const again = h('button', { type: 'button', class: 'btn primary block', 'data-testid': 'try-again' }, t('tryAgain'));
        again.addEventListener('click', () => void this.loadPrompt());
        replace(
          this.el,
          h('h1', null, t('joinTitle', { code: this.code })),
          h('p', { class: 'notice', role: 'alert', 'data-testid': 'code-limited' }, t('codeLimited')),
          again,
          h('div', { style: { height: '10px' } }),
          link('/', { class: 'btn quiet block' }, t('home')),
        );
        break;
      }
      case 'prompt':
        replace(this.el, this.promptView());
        break;
      case 'arriving':
        replace(this.el, this.arrivingView());
        if (focusLost()) focusHeading(this.el);
        break;
      case 'unpaired':
        replace(this.el, this.unpairedView());
        if (focusLost()) focusHeading(this.el);
        break;
      case 'invite':
        this.invite?.destroy();
        this.invite = new InviteView(this.code, (m) => this.conn?.send(m) ?? null, this.key ?? this.party?.key);
        replace(this.el, this.invite.el);
        if (this.party) this.invite.update(this.party, this.seat, this.host);
        if (focusLost()) focusHeading(this.invite.el);
        break;
      case 'game':
        this.game = new GameView((m) => this.conn?.send(m) ?? null, this.code);
        replace(this.el, this.game.el);
        if (this.party && this.state) this.game.update(this.party, this.state, this.seat);
        this.game.setOnline(this.conn?.online ?? false);
        // the invite (and its Start button) or the loading line went: the game's heading takes the focus
        if (focusLost()) focusHeading(this.game.el);
        break;
    }
  }

  /** The other player's name at this table. */
  /** The other player's name (or, given a seat, that player's). */
  private opponentName(seat?: number): string {
    const at = (pl: { seat: number }) => (seat === undefined ? pl.seat !== this.seat : pl.seat === seat);
    return this.party?.players.find(at)?.name ?? '';
  }

  /** An opponent was found and has not come to the table yet: the game begins when they do. */
  private arrivingView(): HTMLElement {
    const wait = h('p', { role: 'status', 'data-testid': 'pairing-waiting' });
    const tick = () => {
      const by = this.party?.pairing?.arriveBy ?? 0;
      wait.textContent = t('pairingWaiting', { name: this.opponentName(), seconds: Math.max(0, Math.ceil((by - Date.now()) / 1000)) });
    };
    tick();
    this.arrivalTimer = window.setInterval(tick, 1000);
    return h('div', { class: 'card', 'data-testid': 'pairing-arriving' }, h('h1', null, t('pairingWaitTitle')), wait, link('/', { class: 'btn quiet block' }, t('home')));
  }

  /** What this player asked the queue for last (or this table's kind), and the name they go by. */
  private seekAgain(): { wish: SeekWish; name: string } {
    const p = this.party!;
    const me = p.players.find((pl) => pl.seat === this.seat)?.name;
    const wish: SeekWish = lastWish() ?? {
      variant: p.variant === 'ouk' ? 'ouk' : 'makruk',
      counting: p.rules.counting === 'declare' ? 'declare' : 'auto',
      mode: p.mode === 'turn' ? 'turn' : 'live',
    };
    return { wish, name: lastName() || me || '' };
  }

  /** The game was called off for the opponent's missing first move: seek again, at the front. */
  private backToFront(): boolean {
    const missing = this.party?.pairing?.missing;
    const token = savedSeat(this.code)?.token;
    if (this.seat === null || missing === this.seat || !token) return false;
    const { wish, name } = this.seekAgain();
    lobby.seek(wish, name, { code: this.code, token, opponent: this.opponentName() });
    navigate('/find');
    return true;
  }

  /** The pairing ended before the game began: say who did not come, and offer the queue again. */
  private unpairedView(): HTMLElement {
    const p = this.party!;
    const missing = p.pairing?.missing;
    const mine = missing !== null && missing !== undefined && missing === this.seat;
    const noMove = p.pairing?.ended === 'no-move';
    const text = noMove
      ? t(mine ? 'pairingYouNoMove' : 'pairingCalledOff', { name: this.opponentName(missing ?? undefined) })
      : mine
        ? t('pairingYouMissed')
        : t(p.pairing?.ended === 'declined' ? 'pairingDeclined' : 'pairingAbsent', { name: this.opponentName() });
    const again = h('button', { type: 'button', class: 'btn primary block', 'data-testid': 'find-another' }, t('findAnother'));
    again.addEventListener('click', () => {
      const { wish, name } = this.seekAgain();
      lobby.seek(wish, name);
      navigate('/find');
    });
    return h(
      'div',
      { class: 'card', 'data-testid': 'pairing-ended' },
      h('h1', null, t('pairingWaitTitle')),
      h('p', { class: 'notice', role: 'alert', 'data-testid': 'pairing-ended-text' }, text),
      again,
      h('div', { style: { height: '10px' } }),
      link('/', { class: 'btn quiet block' }, t('home')),
    );
  }

  private promptView(): HTMLElement {
    const p = this.promptParty;
    // Both seats taken (and not ended): the choice is to watch, or to start another table.
    const full = !!p && p.players.length >= 2 && p.status !== 'expired';
    const who = nameField();
    if (full) who.field.querySelector('label')!.textContent = t('watchNameLabel');
    const err = h('div', { class: 'error', role: 'alert', 'data-testid': 'error' });
    const btn = h('button', { type: 'submit', class: 'btn primary block', 'data-testid': full ? 'watch' : 'join' }, full ? t('watchGame') : t('join'));
    const watch = full
      ? link('/new', { class: 'btn quiet block', 'data-testid': 'start-own' }, t('startOwn'))
      : h('button', { type: 'button', class: 'btn quiet block', 'data-testid': 'watch' }, t('justWatch'));
    const watchAs = (name: string | undefined) => {
      this.mode = 'loading';
      this.render();
      this.connect(undefined, name);
    };
    if (!full) watch.addEventListener('click', () => watchAs(who.input.value.trim() || undefined));
    const players = p
      ? h(
          'ul',
          { class: 'seats card' },
          p.players.map((pl) =>
            h(
              'li',
              { class: 'seat' },
              h('span', { class: `dot${pl.online ? ' on' : ''}` }),
              h('span', { class: 'name' }, pl.name),
              pl.host ? h('span', { class: 'tag' }, t('hostMark')) : null,
            ),
          ),
        )
      : null;
    const form = h(
      'form',
      { novalidate: true, 'data-testid': 'join-prompt' },
      h('h1', null, t('joinTitle', { code: this.code })),
      p
        ? h(
            'p',
            { class: 'muted', 'data-testid': 'prompt-rules' },
            // the counting rule says what it is about, as on the game screen
            [
              p.variant === 'ouk' ? t('ouk') : t('makruk'),
              p.mode === 'turn' ? t('turnBased') : null,
              `${t('countStart')}: ${p.rules.counting === 'declare' ? t('countDeclare') : t('countAuto')}`,
      clockRuleText(p.rules.clock),
            ]
              .filter(Boolean)
              .join(' · '),
          )
        : null,
      p && typeof p.startsAt === 'number' ? h('p', { 'data-testid': 'prompt-starts-at' }, t('startsAtWhen', { when: formatWhen(p.startsAt) })) : null,
      p?.status === 'expired' ? h('p', { class: 'notice', 'data-testid': 'table-expired' }, t(p.mode === 'turn' ? 'tableExpired' : 'tableExpiredLive')) : null,
      full ? h('p', { class: 'notice', role: 'status', 'data-testid': 'table-full' }, t('tableFull')) : null,
      players,
      // an expired table takes no new player: it can only be looked at
      p?.status === 'expired' ? null : [who.field, err, btn],
      h('div', { style: { height: '10px' } }),
      watch,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (full) {
        const name = who.input.value.trim();
        if (name) saveName(name);
        watchAs(name || undefined);
        return;
      }
      const name = who.read(err);
      if (!name) return;
      btn.disabled = true;
      try {
        const r = await api.join(this.code, name, undefined, this.key ?? p?.key);
        saveName(name);
        saveSeat(this.code, { token: r.token, seat: r.seat, name });
        this.party = r.party;
        this.mode = 'loading';
        this.render();
        this.connect(r.token);
      } catch (ex) {
        if ((ex as { code?: string }).code === 'full') {
          // Someone took the last seat meanwhile: offer to watch, keeping the name typed.
          saveName(name);
          await this.loadPrompt();
          return;
        }
        err.textContent = errorText(ex);
        btn.disabled = false;
      }
    });
    return form;
  }

  relabel(): void {
    if (this.mode === 'game' && this.game) {
      this.game.relabel();
      return;
    }
    if (this.mode === 'invite' && this.invite) {
      this.invite.relabel();
      return;
    }
    this.render();
  }

  destroy(): void {
    this.destroyed = true;
    window.clearInterval(this.arrivalTimer);
    this.offPush();
    this.invite?.destroy();
    this.conn?.close();
    this.conn = null;
    this.game?.destroy();
    setConnBanner(null);
    document.title = t('appName');
  }
}
