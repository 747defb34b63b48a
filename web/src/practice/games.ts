// Games against the CPU played on this device, without the server (when it cannot be
// reached, or the browser is offline): each kept in localStorage (`makruk.local.ID`) with
// its settings and its record of actions, as the server records them; the rules and the CPU
// come from the core in WebAssembly (local.ts). The newest KEEP games are kept.
import type { Counting, Rules, Variant } from '../shared/api';

export interface LocalGame {
  id: string;
  variant: Variant;
  counting: Counting;
  /** The CPU's level, 1–8. */
  level: number;
  /** The player's name (seat 0; the CPU is seat 1). */
  name: string;
  rules: Rules;
  /** The game's number at this table: a rematch is the next one. */
  number: number;
  /** The seat that plays White: 0 the player, 1 the CPU. */
  white: 0 | 1;
  /** The start, when not the usual one (empty). */
  startFen: string;
  /** Every action, as the server would record it ("e3e4", "count:b", "resign:w"…). */
  actions: string[];
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  reason: string | null;
  /** Moves played (for the list). */
  moves: number;
  createdAt: number;
  updatedAt: number;
}

const PREFIX = 'makruk.local.';
const KEEP = 100;
export const LOCAL_ID_RE = /^[0-9a-f]{12}$/;

function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function localGame(id: string): LocalGame | null {
  if (!LOCAL_ID_RE.test(id)) return null;
  try {
    const raw = localStorage.getItem(PREFIX + id);
    if (!raw) return null;
    const g = JSON.parse(raw) as LocalGame;
    return g && g.id === id && Array.isArray(g.actions) ? g : null;
  } catch {
    return null;
  }
}

/** Keeps the game (false: the browser's storage refused it). */
export function saveLocalGame(g: LocalGame): boolean {
  try {
    localStorage.setItem(PREFIX + g.id, JSON.stringify({ ...g, updatedAt: Date.now() }));
    return true;
  } catch {
    return false;
  }
}

/** The games kept on this device, the latest played first. */
export function localGames(): LocalGame[] {
  const out: LocalGame[] = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key?.startsWith(PREFIX)) continue;
      const g = localGame(key.slice(PREFIX.length));
      if (g) out.push(g);
    }
  } catch {
    /* storage may be blocked */
  }
  return out.sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
}

export function forgetLocalGame(id: string): void {
  try {
    localStorage.removeItem(PREFIX + id);
  } catch {
    /* ignore */
  }
}

/** A new game against the CPU, kept at once; the oldest games beyond KEEP are let go. */
export function newLocalGame(o: {
  variant: Variant;
  counting: Counting;
  level: number;
  name: string;
  rules: Rules;
  number?: number;
  startFen?: string;
}): LocalGame {
  const number = o.number ?? 1;
  const now = Date.now();
  const g: LocalGame = {
    id: newId(),
    variant: o.variant,
    counting: o.counting,
    level: Math.max(1, Math.min(8, Math.round(o.level))),
    name: o.name,
    rules: { ...o.rules },
    number,
    // as the server seats them: the player is White in odd games, Black in even ones when colours swap
    white: o.rules.swapColors && number % 2 === 0 ? 1 : 0,
    startFen: o.startFen ?? '',
    actions: [],
    result: '*',
    reason: null,
    moves: 0,
    createdAt: now,
    updatedAt: now,
  };
  saveLocalGame(g);
  for (const old of localGames().slice(KEEP)) forgetLocalGame(old.id);
  return g;
}

/** Whether a failed request to the server means it cannot be reached (rather than a refusal). */
export function unreachable(e: unknown): boolean {
  return (e as { code?: string } | null)?.code === 'network' || (typeof navigator !== 'undefined' && navigator.onLine === false);
}
