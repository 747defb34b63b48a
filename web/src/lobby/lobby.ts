// Finding an opponent online: one WebSocket to /ws that says `seek` and waits
// to be `paired`. It lives outside the screens, so that a player may practise
// against the CPU while waiting and still be told when an opponent is found.
// Closing the page leaves the queue (the server drops a closed connection's seek).
import { forgetSeat, saveName, saveSeat, savedSeat } from '../shared/api';
import { wsUrl } from '../shared/conn';
import type { MessageArg } from '../shared/i18n';

export interface SeekWish {
  variant: '' | 'makruk' | 'ouk';
  counting: '' | 'auto' | 'declare';
  mode: '' | 'live' | 'turn';
}

export interface LobbyCounts {
  waiting: number;
  playing: number;
}

export interface Paired {
  code: string;
  seat: number;
  opponent: string;
}

export type LobbyState =
  | { kind: 'idle' }
  | { kind: 'seeking'; wish: SeekWish; name: string; front?: { code: string; token: string; opponent: string } }
  | { kind: 'paired'; paired: Paired }
  | { kind: 'missed'; opponent: string }
  | { kind: 'refused'; error: string; code: string; msg?: string; args?: Record<string, MessageArg> };

type Listener = (s: LobbyState, counts: LobbyCounts | null) => void;

const BROWSER_KEY = 'makruk.browser';
const WISH_KEY = 'makruk.seek';

/** What this browser last asked for (the find screen starts from it; "find another" repeats it). */
export function lastWish(): SeekWish | null {
  try {
    const w = JSON.parse(localStorage.getItem(WISH_KEY) ?? 'null');
    if (w && typeof w === 'object' && ['', 'makruk', 'ouk'].includes(w.variant) && ['', 'auto', 'declare'].includes(w.counting) && ['', 'live', 'turn'].includes(w.mode))
      return { variant: w.variant, counting: w.counting, mode: w.mode };
  } catch {
    /* none kept */
  }
  return null;
}

/** This browser's random id (kept in the browser): its place in the queue, and its limits. */
export function browserId(): string {
  try {
    let id = localStorage.getItem(BROWSER_KEY);
    if (!id) {
      const bytes = new Uint8Array(12);
      crypto.getRandomValues(bytes);
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      localStorage.setItem(BROWSER_KEY, id);
    }
    return id;
  } catch {
    return '';
  }
}

class Lobby {
  private ws: WebSocket | null = null;
  private listeners = new Set<Listener>();
  private retry: number | undefined;
  state: LobbyState = { kind: 'idle' };
  counts: LobbyCounts | null = null;

  subscribe(f: Listener): () => void {
    this.listeners.add(f);
    f(this.state, this.counts);
    return () => this.listeners.delete(f);
  }

  /**
   * Joins the queue (or changes what this browser waits for). `front`: the table whose
   * opponent made no first move, with this player's seat token: the server puts this seek
   * at the front of the queue (once, soon after).
   */
  seek(wish: SeekWish, name: string, front?: { code: string; token: string; opponent: string }): void {
    saveName(name);
    try {
      localStorage.setItem(WISH_KEY, JSON.stringify(wish));
    } catch {
      /* not kept */
    }
    this.set({ kind: 'seeking', wish, name, front });
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.sendSeek();
    else this.open();
  }

  /** Leaves the queue. */
  cancel(): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ t: 'unseek' }));
    this.close();
    this.set({ kind: 'idle' });
  }

  /** Forgets a pairing once its table is open (or a missed one once told). */
  done(): void {
    if (this.state.kind === 'paired' || this.state.kind === 'missed') {
      this.close();
      this.set({ kind: 'idle' });
    }
  }

  /** "Not now" to a found opponent: the table ends unstarted and the other is told. */
  decline(): void {
    if (this.state.kind !== 'paired') return;
    const { code } = this.state.paired;
    const token = savedSeat(code)?.token ?? '';
    const ws = this.ws;
    const send = (w: WebSocket) => w.send(JSON.stringify({ t: 'decline-pairing', code, token }));
    if (ws && ws.readyState === WebSocket.OPEN) {
      send(ws);
      window.setTimeout(() => ws.close(), 2000);
    } else {
      // The queue's connection is gone: one of its own, closed once said.
      const w = new WebSocket(wsUrl());
      w.onopen = () => {
        send(w);
        window.setTimeout(() => w.close(), 2000);
      };
    }
    this.ws = null;
    forgetSeat(code);
    this.set({ kind: 'idle' });
  }

  private sendSeek(): void {
    if (this.state.kind !== 'seeking' || !this.ws) return;
    const { wish, name, front } = this.state;
    const at = front ? { code: front.code, token: front.token } : {};
    this.ws.send(JSON.stringify({ t: 'seek', name, browser: browserId(), ...wish, ...at }));
  }

  private open(): void {
    window.clearTimeout(this.retry);
    const ws = new WebSocket(wsUrl());
    this.ws = ws;
    ws.onopen = () => this.sendSeek();
    ws.onmessage = (ev) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      this.onMessage(m);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      // Still waiting: come back into the queue when the server is there again.
      if (this.state.kind === 'seeking') this.retry = window.setTimeout(() => this.open(), 1000);
    };
  }

  private close(): void {
    window.clearTimeout(this.retry);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  private onMessage(m: Record<string, unknown>): void {
    switch (m.t) {
      case 'lobby':
        this.counts = { waiting: Number(m.waiting) || 0, playing: Number(m.playing) || 0 };
        this.emit();
        break;
      case 'paired': {
        const code = String(m.code);
        const seat = Number(m.seat);
        const name = this.state.kind === 'seeking' ? this.state.name : '';
        saveSeat(code, { token: String(m.token), seat, name });
        // The connection stays open until the player goes to the table or says "Not now":
        // the server says on it if the pairing ends first.
        this.set({ kind: 'paired', paired: { code, seat, opponent: String(m.opponent ?? '') } });
        break;
      }
      case 'pairing-ended':
        // The player did not come in time (or declined at another tab): the table is gone.
        if (this.state.kind === 'paired' && this.state.paired.code === m.code) {
          const { opponent, code } = this.state.paired;
          this.close();
          forgetSeat(code);
          this.set({ kind: 'missed', opponent });
        }
        break;
      case 'seek-ended':
        if (m.reason === 'replaced') {
          // Another tab of this browser took the place in the queue.
          this.close();
          this.set({ kind: 'idle' });
        }
        break;
      case 'error':
        if (this.state.kind === 'seeking') {
          this.close();
          this.set({
            kind: 'refused',
            error: String(m.error ?? ''),
            code: String(m.code ?? ''),
            msg: typeof m.msg === 'string' ? m.msg : undefined,
            args: m.args as Record<string, MessageArg> | undefined,
          });
        }
        break;
    }
  }

  private set(s: LobbyState): void {
    this.state = s;
    this.emit();
  }

  private emit(): void {
    for (const f of this.listeners) f(this.state, this.counts);
  }
}

export const lobby = new Lobby();
