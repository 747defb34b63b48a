// The WebSocket connection to /ws: says hello with the seat token, reconnects by itself
// with a jittered backoff, and resyncs when it sees a gap in game versions.
import type { GameEvent, GameState, Party } from './api';
import type { MessageArg } from './i18n';
import { heardServerTime } from './clock';

/** A move, as opposed to an action such as "count:w", "offer:b" or "expire". */
function isMoveAction(a: string): boolean {
  return !a.includes(':') && a !== 'expire';
}

export interface Welcome {
  t: 'welcome';
  seat: number | null;
  host: boolean;
}

export interface ServerError {
  t: 'error';
  id?: string;
  /** In English; `msg` and `args` say it again as an id with parameters (i18n.ts messageText). */
  error: string;
  code: string;
  msg?: string;
  args?: Record<string, MessageArg>;
}

export interface ConnHandlers {
  welcome(w: Welcome): void;
  party(p: Party): void;
  state(s: GameState): void;
  error(e: ServerError): void;
  ack?(id: string | undefined, v: number | undefined): void;
  /** A quick message from the player at `seat`. */
  said?(seat: number, phrase: string): void;
  status(online: boolean): void;
}

// How long to wait before the next try, at most. While the page is in view the wait stays
// short, so a player is back within about two seconds of the server coming back however long
// it was away. Hidden, the wait may grow, to spare the battery: showing the page again (or the
// browser finding its network again) tries at once. When the browser knows it has no network
// at all, the 'online' event is what wakes us, so there is no hurry either.
const RETRY_FIRST_MS = 500;
const RETRY_CAP_VISIBLE_MS = 1500;
const RETRY_CAP_NO_NETWORK_MS = 10000;
const RETRY_CAP_HIDDEN_MS = 30000;
// A try that neither opens nor fails (a lost packet, a dead route) is given up after this.
const OPEN_TIMEOUT_MS = 8000;

/** The server's WebSocket address, from the page's own; with the table's code, the server hands
 * the connection to the thread that holds that table. */
export function wsUrl(code?: string): string {
  const query = code ? `?code=${encodeURIComponent(code)}` : '';
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws${query}`;
}

export class Conn {
  private ws: WebSocket | null = null;
  private closed = false;
  private attempt = 0;
  private retryTimer: number | undefined;
  private openTimer: number | undefined;
  private pingTimer: number | undefined;
  private nextId = 1;
  private lastV = new Map<number, number>(); // game id -> last version seen
  private last: GameState | null = null; // the state events apply to
  online = false;

  constructor(
    private code: string,
    private token: string | undefined,
    private h: ConnHandlers,
    /** The invite link's key (no guess at the code), and a spectator's name to be listed by. */
    private extra: { key?: string; name?: string } = {},
  ) {
    this.onWake = this.onWake.bind(this);
    window.addEventListener('online', this.onWake);
    document.addEventListener('visibilitychange', this.onWake);
    this.open();
  }


  private open(): void {
    if (this.closed) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(wsUrl(this.code));
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    window.clearTimeout(this.openTimer);
    this.openTimer = window.setTimeout(() => {
      if (this.ws === ws && ws.readyState === WebSocket.CONNECTING) this.abandon(ws);
    }, OPEN_TIMEOUT_MS);
    ws.onopen = () => {
      window.clearTimeout(this.openTimer);
      // events: after the first state, each change comes as an event of a few hundred bytes.
      const hello: Record<string, unknown> = { t: 'hello', code: this.code, events: true };
      if (this.token) hello.token = this.token;
      if (this.extra.key) hello.key = this.extra.key;
      if (this.extra.name && !this.token) hello.name = this.extra.name;
      ws.send(JSON.stringify(hello));
      this.pingTimer = window.setInterval(() => this.raw({ t: 'ping' }), 25000);
    };
    ws.onmessage = (ev) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      this.dispatch(m);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.abandon(ws);
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  /** Forgets a socket that closed (or never opened), says we are offline and plans the next try. */
  private abandon(ws: WebSocket): void {
    this.ws = null;
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close();
    window.clearTimeout(this.openTimer);
    window.clearInterval(this.pingTimer);
    this.setOnline(false);
    this.scheduleRetry();
  }

  private dispatch(m: Record<string, unknown>): void {
    switch (m.t) {
      case 'pong':
        heardServerTime(m.now);
        break;
      case 'welcome':
        heardServerTime(m.now);
        this.attempt = 0;
        this.setOnline(true);
        this.h.welcome(m as unknown as Welcome);
        break;
      case 'party':
        this.h.party((m.party ?? m) as Party);
        break;
      case 'state': {
        const s = m as unknown as GameState;
        const seen = this.lastV.get(s.game);
        if (seen !== undefined && s.v < seen) return; // stale, ignore
        if (seen !== undefined && s.v > seen + 1) {
          // A gap: something was missed. Render this state (it is complete) and ask for a fresh one.
          this.raw({ t: 'sync' });
        }
        this.lastV.set(s.game, s.v);
        this.last = s;
        this.h.state(s);
        break;
      }
      case 'moved': {
        const e = m as unknown as GameEvent;
        const last = this.last;
        if (last && last.game === e.game && e.v <= last.v) return; // stale, ignore
        if (!last || last.game !== e.game || e.from !== last.v) {
          this.raw({ t: 'sync' }); // a gap, or another game: the whole state comes back
          return;
        }
        const { actions, from, san, sanThai, ...now } = e;
        void from;
        const s: GameState = {
          ...now,
          t: 'state',
          gameId: last.gameId,
          moves: [...last.moves, ...actions.filter(isMoveAction)],
          san: [...last.san, ...san],
          sanThai: [...(last.sanThai ?? []), ...(sanThai ?? [])],
        };
        this.lastV.set(s.game, s.v);
        this.last = s;
        this.h.state(s);
        break;
      }
      case 'ack':
        this.h.ack?.(m.id as string | undefined, m.v as number | undefined);
        break;
      case 'said':
        this.h.said?.(Number(m.seat), String(m.phrase));
        break;
      case 'error': {
        const e = m as unknown as ServerError;
        if (e.code === 'conflict') this.raw({ t: 'sync' });
        this.h.error(e);
        break;
      }
      default:
        break;
    }
  }

  private setOnline(on: boolean): void {
    if (this.online === on) return;
    this.online = on;
    this.h.status(on);
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    window.clearTimeout(this.retryTimer);
    const cap =
      document.visibilityState === 'hidden'
        ? RETRY_CAP_HIDDEN_MS
        : navigator.onLine === false
          ? RETRY_CAP_NO_NETWORK_MS
          : RETRY_CAP_VISIBLE_MS;
    const base = Math.min(cap, RETRY_FIRST_MS * 2 ** this.attempt);
    // Jitter: a restarted server is not met by every client in the same instant.
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt = Math.min(this.attempt + 1, 10);
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }

  private onWake(ev: Event): void {
    if (this.closed || this.ws) return;
    // A hidden page waits for the long backoff, unless the network itself just came back.
    if (ev.type !== 'online' && document.visibilityState === 'hidden') return;
    // Coming back (network up, page in view): try now instead of waiting out the backoff.
    window.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.attempt = 0;
    this.open();
  }

  private raw(m: Record<string, unknown>): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(m));
    return true;
  }

  /** Sends an intent; answers the id it carries, or null when offline. */
  send(m: Record<string, unknown>): string | null {
    const id = `c${this.nextId++}`; // the server wants a string id
    return this.raw({ ...m, id }) ? id : null;
  }

  sync(): void {
    this.raw({ t: 'sync' });
  }

  /** For tests: drop the socket as a network failure would. */
  dropForTest(): void {
    this.ws?.close();
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.openTimer);
    window.clearInterval(this.pingTimer);
    window.removeEventListener('online', this.onWake);
    document.removeEventListener('visibilitychange', this.onWake);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }
}
