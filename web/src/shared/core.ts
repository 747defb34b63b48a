// The page's side of the core's worker (core-worker.ts): the rules core and the engine,
// in WebAssembly, answering in the background.
import type { Color, Count, Variant } from './api';
import type { MessageRef } from './i18n';

/** The game after a list of actions, as the core sees it; when refused, why (`error` in
 * English, `msg` and `args` for i18n.ts messageText). */
export interface CoreGame extends MessageRef {
  ok: boolean;
  error?: string;
  fen: string;
  turn: Color;
  check: boolean;
  legal: string[];
  san: string[];
  sanThai: string[];
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  reason: string | null;
  count: Count | null;
  repetitions: number;
  /** What each side may do besides moving (declaration mode's counts, Ouk's claim), and a draw offer standing. */
  canCount: Record<Color, boolean>;
  canStop: Record<Color, boolean>;
  canClaim: boolean;
  drawOffer: Color | null;
  /** Where our rules ended a game that went on past it (asked for with `playOn`): after which ply, how and why. */
  ended: { ply: number; result: '1-0' | '0-1' | '1/2-1/2' | '*'; reason: string } | null;
}

/** A game of a text that holds several, as the list to pick from shows it. */
export interface CoreListed {
  ok: boolean;
  error?: string;
  plies?: number;
  result?: string;
  tags?: Record<string, string>;
}

/** A text read as a game record: the game picked (the first unless asked), and, when the text holds several, all of them. */
export interface CoreRecord extends MessageRef {
  ok: boolean;
  error?: string;
  variant: Variant;
  fen: string;
  moves: string[];
  result: string;
  tags: Record<string, string>;
  index?: number;
  games?: CoreListed[];
}

/** A search's answer (or its progress, one depth at a time). */
export interface CoreSearch {
  ok: boolean;
  error?: string;
  best: string;
  /** As UCI writes it, for the side to move: "cp 35", "mate -3". */
  score: string;
  depth: number;
  /** Nodes of the last depth's search; `total`: of every depth so far; `ms`: all the time so far. */
  nodes: number;
  total: number;
  pv: string[];
  /** The best moves (as many as asked for), best first: each with its score and line. */
  lines: { score: string; pv: string[] }[];
  ms: number;
}

type Pending = { resolve: (v: never) => void; reject: (e: Error) => void; progress?: (p: CoreSearch) => void };

/** One core for the rules the pages ask about (the engine's searches get their own, so that stopping one stops nothing else). */
let shared: Core | null = null;
export function rulesCore(): Core {
  return (shared ??= new Core());
}

export class Core {
  private worker: Worker | null = null;
  private next = 1;
  private pending = new Map<number, Pending>();

  private start(): Worker {
    const w = new Worker(new URL('./core-worker.ts', import.meta.url));
    w.onmessage = (e: MessageEvent<{ id: number; result?: unknown; progress?: CoreSearch }>) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      if (e.data.progress) {
        p.progress?.(e.data.progress);
        return;
      }
      this.pending.delete(e.data.id);
      p.resolve(e.data.result as never);
    };
    w.onerror = (e) => {
      e.preventDefault();
      this.fail(new Error(`the engine stopped: ${e.message}`));
    };
    return w;
  }

  private call<T>(call: string, args: unknown[], progress?: (p: CoreSearch) => void): Promise<T> {
    if (!this.worker) this.worker = this.start();
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: never) => void, reject, progress });
      this.worker!.postMessage({ id, call, args });
    });
  }

  private fail(e: Error): void {
    this.worker?.terminate();
    this.worker = null;
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }

  /** The game from `fen` (empty: the usual start) after `actions` (as the server records them).
   * `playOn`: moves after the end our rules give the game go on past it (a record analysed). */
  game(variant: Variant, counting: 'auto' | 'declare', fen: string, actions: string[], playOn = false): Promise<CoreGame> {
    return this.call('game', [variant, counting, fen, actions.join(' '), playOn ? 1 : 0]);
  }

  /** The engine's best `lines` moves there, deepening to `depth`; `progress` after each depth.
   * `budgetMs` (0: none): it goes no deeper once that much time has gone; `from`: the first
   * depth searched (to take up a search where it rested). */
  search(variant: Variant, fen: string, actions: string[], depth: number, progress?: (p: CoreSearch) => void, lines = 1, playOn = false, budgetMs = 0, from = 1): Promise<CoreSearch> {
    return this.call('search', [variant, fen, actions.join(' '), depth, lines, playOn ? 1 : 0, budgetMs, from], progress);
  }

  /** The FEN before the first move and after each move (for stepping through a game). */
  positions(variant: Variant, counting: 'auto' | 'declare', fen: string, actions: string[], playOn = false): Promise<{ ok: boolean; error?: string; fens: string[] }> {
    return this.call('positions', [variant, counting, fen, actions.join(' '), playOn ? 1 : 0]);
  }

  /** A move as a player typed it (SAN, coordinates, Thai or Khmer notation), found among the legal moves of `fen`. */
  typed(variant: Variant, fen: string, text: string): Promise<{ ok: boolean; move?: string; error?: 'empty' | 'bad' | 'illegal' | 'ambiguous' | string }> {
    return this.call('typed', [variant, fen, text]);
  }

  /** A PGN, a plain list of moves or a FEN, read by the core (`variant`: when the text names none);
   * of a collection, the game `index` (from 0). */
  pgn(text: string, variant: Variant, index = 0): Promise<CoreRecord> {
    return this.call('pgn', [text, variant, index]);
  }

  /** What the CPU at `level` (1–8) does after `actions`, as the server's CPU player would:
   * its move, perhaps after answering a draw offer or starting or stopping a count. */
  level(variant: Variant, counting: 'auto' | 'declare', fen: string, actions: string[], level: number, seed: number): Promise<{ ok: boolean; error?: string; actions: string[] }> {
    return this.call('level', [variant, counting, fen, actions.join(' '), level, seed]);
  }

  /** Stops at once whatever runs (its promises are refused); the next call starts afresh. */
  stop(): void {
    this.fail(new Error('stopped'));
  }
}
