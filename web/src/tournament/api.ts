// Tournaments by code: the server's API (docs/api.md, "Tournaments"), and what this browser
// keeps of the tournaments it hosts or plays in.
import { call, saveSeat, type ClockRule, type Counting, type TableMode, type Variant } from '../shared/api';

export type Format = 'swiss' | 'roundrobin' | 'arena';
export type TournamentStatus = 'open' | 'running' | 'paused' | 'finished';
export type GameResult = '1-0' | '1/2-1/2' | '0-1';

export interface TPlayer {
  number: number;
  name: string;
  dropped: boolean;
}

export interface TGame {
  round: number;
  board: number;
  white: number;
  black: number;
  /** The game's table: `/p/TABLE`. */
  table: string;
  result: GameResult | null;
}

export interface TStanding {
  place: number;
  player: number;
  points: string;
  buchholz: string;
  sonnebornBerger: string;
  wins: number;
  games: number;
}

export interface Tournament {
  code: string;
  title: string;
  variant: Variant;
  counting: Counting;
  mode: TableMode;
  format: Format;
  status: TournamentStatus;
  round: number;
  /** A Swiss's rounds, a round robin's once started; null for an arena. */
  rounds: number | null;
  version: number;
  clock: ClockRule | null;
  startedAt: number | null;
  /** When an arena ends (ms since the epoch). */
  endsAt: number | null;
  players: TPlayer[];
  games: TGame[];
  byes: { round: number; player: number }[];
  waiting: number[];
  standings: TStanding[];
}

export interface CreateTournament {
  title?: string;
  variant: Variant;
  counting: Counting;
  mode: TableMode;
  format: Format;
  rounds?: number;
  minutes?: number;
  clock?: { minutes: number; increment: number } | null;
}

const path = (code: string) => `/api/tournaments/${encodeURIComponent(code)}`;

export const tapi = {
  create: (b: CreateTournament) => call<{ code: string; hostToken: string }>('POST', '/api/tournaments', b),
  get: (code: string) => call<Tournament>('GET', path(code)),
  join: (code: string, name: string) =>
    call<Tournament & { you: { number: number; token: string } }>('POST', `${path(code)}/join`, { name }),
  act: (code: string, body: { token: string; action: string; player?: number; round?: number; board?: number; result?: string }) =>
    call<Tournament>('POST', `${path(code)}/act`, body),
  qrUrl: (code: string) => `${path(code)}/qr.svg`,
  csvUrl: (code: string) => `${path(code)}/standings.csv`,
  pgnUrl: (code: string) => `${path(code)}/games.pgn`,
};

/** What this browser holds of a tournament: the host's token, and its player's. */
export interface Held {
  host?: string;
  player?: { number: number; token: string; name: string };
}

const KEY = (code: string) => `makruk.tournament.${code}`;

export function held(code: string): Held {
  try {
    const raw = localStorage.getItem(KEY(code));
    return raw ? (JSON.parse(raw) as Held) : {};
  } catch {
    return {};
  }
}

export function hold(code: string, h: Held): void {
  try {
    localStorage.setItem(KEY(code), JSON.stringify({ ...held(code), ...h }));
  } catch {
    /* storage may be blocked */
  }
}

/**
 * A player's game: their tournament token is their seat's token at its table, saved as a
 * table's seat is (so that the table's page, My games and push notifications know it).
 */
export function takeSeat(game: TGame, player: NonNullable<Held['player']>): void {
  saveSeat(game.table, { token: player.token, seat: game.white === player.number ? 0 : 1, name: player.name });
}
