// The server's HTTP API (docs/api.md, "The server") and the types it sends.
export type Variant = 'makruk' | 'ouk';
export type Counting = 'auto' | 'declare';
export type Color = 'w' | 'b';
export type TableMode = 'live' | 'turn';
export type PartyStatus = 'waiting' | 'ready' | 'playing' | 'finished' | 'expired';

/** The clock house rule: each side's time for the game, and what each move adds (ms). */
export interface ClockRule {
  ms: number;
  incrementMs: number;
}

export interface Rules {
  counting: Counting;
  showLegal: boolean;
  swapColors: boolean;
  labels: boolean;
  /** None: no clock. */
  clock?: ClockRule | null;
}

/**
 * A game's clocks: each side's time left (ms) when the running turn began, at `since` (the
 * server's ms since the epoch), and whose clock runs (none once the game is over).
 */
export interface GameClock {
  w: number;
  b: number;
  since: number;
  running: Color | null;
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
  status: PartyStatus;
  game: number | null;
  gameNumber: number;
  /** The position the table's games start from, when not the usual one. */
  fen?: string | null;
  /** `turn`: turn-based (a move whenever a player likes, told by Web Push). Absent = live. */
  mode?: TableMode;
  /** The scheduled start (ms since the epoch), or null. */
  startsAt?: number | null;
  /** The last accepted action (or the creation), ms since the epoch. */
  lastMoveAt?: number | null;
  /** When a turn-based table that is not finished expires, else null. */
  expiresAt?: number | null;
  /** The table's invite key: links carry it (`/p/CODE?k=KEY`), so following one is no guess. */
  key?: string;
  /** The names spectators gave (each once). */
  watchers?: string[];
  /** A rematch offered by a seat, or declined by one, once the game is over. */
  rematch?: { offeredBy: number | null; declinedBy: number | null };
  /**
   * A table from "find an opponent": its game begins when both players have come (by
   * `arriveBy`, ms); or the pairing ended before that (`ended`: `declined` or `absent`),
   * `missing` being the seat that did not come; or its game was called off because `missing`
   * made no first move in time (`no-move`).
   */
  pairing?: { arriveBy?: number; ended?: 'declined' | 'absent' | 'no-move'; missing?: number | null };
  /** A tournament's game: its tournament, round and board (`/t/CODE`); it has no rematch. */
  tournament?: { code: string; round: number; board: number } | null;
}

/** A game by its own id: `GET /api/games/ID` (docs/api.md, "Games"). */
export interface GameRecord {
  id: string;
  variant: Variant;
  counting: Counting;
  mode: TableMode;
  cpu: number | null;
  number: number;
  white: string;
  black: string;
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  reason: string | null;
  startFen: string;
  fen: string;
  turn: Color;
  check: boolean;
  moves: string[];
  san: string[];
  sanThai: string[];
  /** Every action of the game's record (moves, counts, draw offers…), in order. */
  actions: string[];
  createdAt: number;
  lastMoveAt: number;
  pgn: string;
}

/** One table of `POST /api/my-games`, seen by the player whose token it was. */
export interface MyGame {
  code: string;
  variant: Variant;
  mode: TableMode;
  seat: number;
  status: PartyStatus;
  color: Color | null;
  yourTurn: boolean;
  opponent: string | null;
  moves: number;
  lastMove: string | null;
  result: '1-0' | '0-1' | '1/2-1/2' | '*' | null;
  reason: string | null;
  lastMoveAt: number | null;
  expiresAt: number | null;
  startsAt: number | null;
}

export interface TableToken {
  code: string;
  token: string;
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
  /** The game's own link: /g/ID, and its PGN at /api/games/ID.pgn. */
  gameId?: string;
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
  /** The side whose draw offer stands, if any. */
  drawOffer?: Color | null;
  /** The side that declined the last draw offer (or moved instead), until the offering side moves. */
  drawDeclined?: Color | null;
  /** Who may offer a draw now (once per move of one's own). */
  canOfferDraw?: Record<Color, boolean>;
  repetitions: number;
  result: '1-0' | '0-1' | '1/2-1/2' | '*';
  reason: string | null;
  /** With the clock house rule. */
  clock?: GameClock | null;
}

/**
 * After the first state, a change comes as an event: the actions accepted after
 * version `from` (the SAN of the moves among them) and the game now. Applied to
 * the state at `from` it gives the state at `v`.
 */
export interface GameEvent extends Omit<GameState, 't' | 'moves' | 'san' | 'sanThai' | 'gameId'> {
  t: 'moved';
  from: number;
  actions: string[];
  san: string[];
  sanThai?: string[];
}

/** A player's recommendation, as the home page shows it. */
export interface Recommendation {
  id: number;
  stars: number;
  text: string;
  name: string;
  lang: string;
  variant: Variant;
  createdAt: number;
}

export class ApiError extends Error {
  constructor(
    message: string,
    public code: string,
    public status: number,
    /** The whole answer, for refusals that say more (a proof of work asked for). */
    public data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** One API request: JSON in and out; a refusal becomes an ApiError with the server's code. */
export async function call<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
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
    throw new ApiError(d.error ?? res.statusText, d.code ?? 'http', res.status, (data ?? {}) as Record<string, unknown>);
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
  mode?: TableMode;
  startsAt?: number;
  /** A position to start from (the analysis board's "play from here"). */
  fen?: string;
  /** The clock house rule: minutes for each side, seconds added by each move; none by default. */
  clock?: { minutes: number; increment: number } | null;
}

export interface SeatAnswer {
  token: string;
  seat: number | null;
  party: Party;
  code?: string;
  link?: string;
}

function keyQuery(key?: string): string {
  return key ? `?k=${encodeURIComponent(key)}` : '';
}

/** The invite link of a table: with its key when known. */
export function inviteLink(code: string, key?: string): string {
  return `${location.origin}/p/${code}${keyQuery(key)}`;
}

/** A table's longest display name; the server refuses longer ones (code points). */
export const NAME_MAX = 24;

export const api = {
  create: (b: CreateBody) => call<SeatAnswer & { code: string; link: string }>('POST', '/api/parties', b),
  game: (id: string) => call<{ game: GameRecord }>('GET', `/api/games/${encodeURIComponent(id)}`),
  /** `proof`: a solved proof of work (proof.ts), asked for when the address is limited for wrong codes. */
  party: (code: string, key?: string, proof?: string) =>
    call<{ party: Party }>(
      'GET',
      `/api/parties/${encodeURIComponent(code)}${proof ? `?proof=${encodeURIComponent(proof)}` : keyQuery(key)}`,
    ),
  join: (code: string, name: string, token?: string, key?: string) =>
    call<SeatAnswer>('POST', `/api/parties/${encodeURIComponent(code)}/join`, {
      name,
      ...(token ? { token } : {}),
      ...(key ? { key } : {}),
    }),
  qrUrl: (code: string, key?: string) => `/api/parties/${encodeURIComponent(code)}/qr.svg${keyQuery(key)}`,
  icsUrl: (code: string) => `/api/parties/${encodeURIComponent(code)}/event.ics`,
  lobby: () => call<{ waiting: number; playing: number }>('GET', '/api/lobby'),
  recommend: (b: { code: string; token: string; stars: number; text: string; lang: string; browser: string }) =>
    call<{ recommendation: Recommendation }>('POST', '/api/recommendations', b),
  recommendations: () => call<{ count: number; average: number | null; items: Recommendation[] }>('GET', '/api/recommendations'),
  myGames: (tables: TableToken[]) => call<{ games: MyGame[]; unknown?: string[] }>('POST', '/api/my-games', { tables }),
  pushKey: () => call<{ publicKey: string }>('GET', '/api/push/key'),
  pushSubscribe: (subscription: PushSubscriptionJSON, lang: string, tables: TableToken[]) =>
    call<{ subscribed: string[]; unknown: string[] }>('POST', '/api/push/subscribe', { subscription, lang, tables }),
};

// ---- Seats kept per party code, so reloads and other tabs keep the seat ----
export interface SavedSeat {
  token: string;
  seat: number | null;
  name: string;
  /** When this browser took the seat (ms); older saves have none. */
  at?: number;
}

const SEAT_PREFIX = 'makruk.seat.';
const SEAT_KEY = (code: string) => `${SEAT_PREFIX}${code}`;

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
    localStorage.setItem(SEAT_KEY(code), JSON.stringify({ ...s, at: s.at ?? Date.now() }));
  } catch {
    /* ignore */
  }
}

export function forgetSeat(code: string): void {
  try {
    localStorage.removeItem(SEAT_KEY(code));
  } catch {
    /* ignore */
  }
}

/**
 * The player seats this browser holds (spectators' tokens left out), newest first, at
 * most `max` of them: what `POST /api/my-games` and `/api/push/subscribe` are sent.
 */
export function allSeats(max = 100): (TableToken & SavedSeat)[] {
  const out: (TableToken & SavedSeat)[] = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(SEAT_PREFIX)) continue;
      const code = key.slice(SEAT_PREFIX.length);
      if (!CODE_RE.test(code)) continue;
      const s = savedSeat(code);
      if (s && s.token && s.seat !== null && s.seat !== undefined) out.push({ ...s, code });
    }
  } catch {
    /* storage may be blocked */
  }
  out.sort((a, b) => (b.at ?? 0) - (a.at ?? 0) || a.code.localeCompare(b.code));
  return out.slice(0, max);
}

export function tableTokens(max = 100): TableToken[] {
  return allSeats(max).map((s) => ({ code: s.code, token: s.token }));
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
