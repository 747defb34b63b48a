// The server's HTTP API (docs/api.md, "The server") and the types it sends.
export type Variant = 'makruk' | 'ouk';
export type Counting = 'auto' | 'declare';
export type Color = 'w' | 'b';

export interface Rules {
  counting: Counting;
  showLegal: boolean;
  swapColors: boolean;
  labels: boolean;
}

export interface Player {
  seat: number;
  name: string;
  online?: boolean;
  host?: boolean;
  cpu?: number;
}

export interface Party {
  code: string;
  variant: Variant;
  rules: Rules;
  cpu: number | null;
  players: Player[];
  spectators: number;
  status: 'waiting' | 'ready' | 'playing' | 'finished';
  game: number | null;
  gameNumber: number;
  /** The position the table's games start from, when not the usual one. */
  fen?: string | null;
}

export interface Count {
  side: Color;
  kind: 'board' | 'piece';
  n: number;
  limit: number;
}

export interface GameState {
  t: 'state';
  game: number;
  number: number;
  v: number;
  variant: Variant;
  white: number;
  black: number;
  fen: string;
  turn: Color;
  check: boolean;
  lastMove: string | null;
  moves: string[];
  san: string[];
  sanThai?: string[];
  legal: string[];
  count: Count | null;
  canCount: Record<Color, boolean>;
  canStop: Record<Color, boolean>;
  canClaim: boolean;
  repetitions: number;
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  reason: string | null;
}

export class ApiError extends Error {
  constructor(
    message: string,
    public code: string,
    public status: number,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(String(e), 'network', 0);
  }
  let data: unknown = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const d = (data ?? {}) as { error?: string; code?: string };
    throw new ApiError(d.error ?? res.statusText, d.code ?? 'http', res.status);
  }
  return data as T;
}

export interface CreateBody {
  name: string;
  variant: Variant;
  counting: Counting;
  showLegal: boolean;
  swapColors: boolean;
  labels: boolean;
  cpu: number | null;
}

export interface SeatAnswer {
  token: string;
  seat: number | null;
  party: Party;
  code?: string;
  link?: string;
}

export const api = {
  create: (b: CreateBody) => call<SeatAnswer & { code: string; link: string }>('POST', '/api/parties', b),
  party: (code: string) => call<{ party: Party }>('GET', `/api/parties/${encodeURIComponent(code)}`),
  join: (code: string, name: string, token?: string) =>
    call<SeatAnswer>('POST', `/api/parties/${encodeURIComponent(code)}/join`, token ? { name, token } : { name }),
  qrUrl: (code: string) => `/api/parties/${encodeURIComponent(code)}/qr.svg`,
};

// ---- Seats kept per party code, so reloads and other tabs keep the seat ----
export interface SavedSeat {
  token: string;
  seat: number | null;
  name: string;
}

const SEAT_KEY = (code: string) => `makruk.seat.${code}`;

export function savedSeat(code: string): SavedSeat | null {
  try {
    const raw = localStorage.getItem(SEAT_KEY(code));
    if (!raw) return null;
    const s = JSON.parse(raw) as SavedSeat;
    return typeof s.token === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function saveSeat(code: string, s: SavedSeat): void {
  try {
    localStorage.setItem(SEAT_KEY(code), JSON.stringify(s));
  } catch {
    /* ignore */
  }
}

export function lastName(): string {
  try {
    return localStorage.getItem('makruk.name') ?? '';
  } catch {
    return '';
  }
}

export function saveName(n: string): void {
  try {
    localStorage.setItem('makruk.name', n);
  } catch {
    /* ignore */
  }
}

export const CODE_RE = /^[A-Z0-9]{6}$/;
export function normaliseCode(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
