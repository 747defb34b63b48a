// Finding an opponent online: one WebSocket to /ws that says `seek` and waits
// to be `paired`. It lives outside the screens, so that a player may practise
// against the CPU while waiting and still be told when an opponent is found.
// Closing the page leaves the queue (the server drops a closed connection's seek).
import { saveName, saveSeat } from './api';
import { wsUrl } from './conn';

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
  | { kind: 'seeking'; wish: SeekWish; name: string }
  | { kind: 'paired'; paired: Paired }
  | { kind: 'refused'; error: string; code: string };

type Listener = (s: LobbyState, counts: LobbyCounts | null) => void;

const BROWSER_KEY = 'makruk.browser';

/** A random id for this browser, kept: one place in the queue per browser. */
function browserId(): string {
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

  /** Joins the queue (or changes what this browser waits for). */
  seek(wish: SeekWish, name: string): void {
    saveName(name);
    this.set({ kind: 'seeking', wish, name });
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.sendSeek();
    else this.open();
  }

  /** Leaves the queue. */
  cancel(): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ t: 'unseek' }));
    this.close();
    this.set({ kind: 'idle' });
  }

  /** Forgets a pairing once its table is open. */
  done(): void {
    if (this.state.kind === 'paired') this.set({ kind: 'idle' });
  }

  private sendSeek(): void {
    if (this.state.kind !== 'seeking' || !this.ws) return;
    const { wish, name } = this.state;
    this.ws.send(JSON.stringify({ t: 'seek', name, browser: browserId(), ...wish }));
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
        this.close();
        this.set({ kind: 'paired', paired: { code, seat, opponent: String(m.opponent ?? '') } });
        break;
      }
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
          this.set({ kind: 'refused', error: String(m.error ?? ''), code: String(m.code ?? '') });
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
