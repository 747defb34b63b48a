// A game that is no table's (a game's own page, the analysis board) as the game screen
// takes it: a table of two with nobody to act, and the game's state now.
import type { GameState, Party, TableMode, Variant } from '../shared/api';
import type { CoreGame } from '../shared/core';

/** What the game screen needs to know of such a game. */
export interface StandIn
  extends Pick<
    GameState,
    'gameId' | 'number' | 'fen' | 'turn' | 'check' | 'moves' | 'san' | 'sanThai' | 'legal' | 'count' | 'repetitions' | 'result' | 'reason'
  > {
  variant: Variant;
  counting: 'auto' | 'declare';
  /** The start, when not the usual one. */
  startFen: string;
  white: { name: string; cpu?: number };
  black: { name: string; cpu?: number };
  cpu: number | null;
  mode?: TableMode;
  /** The board's game: a new number tells the game screen a new game begins. */
  game: number;
}

/** What a stand-in takes as it is from the rules core's answer for a game on this device (its
 * legal moves only while the game runs). */
export function fromCore(
  g: CoreGame,
): Pick<StandIn, 'fen' | 'turn' | 'check' | 'san' | 'sanThai' | 'legal' | 'count' | 'repetitions' | 'result' | 'reason'> {
  return {
    fen: g.fen,
    turn: g.turn,
    check: g.check,
    san: g.san,
    sanThai: g.sanThai,
    legal: g.result === '*' ? g.legal : [],
    count: g.count,
    repetitions: g.repetitions,
    result: g.result,
    reason: g.reason,
  };
}

export function standIn(g: StandIn): { party: Party; state: GameState } {
  const party: Party = {
    code: '',
    variant: g.variant,
    rules: { counting: g.counting, showLegal: g.legal.length > 0, swapColors: false, labels: true },
    cpu: g.cpu,
    players: [
      { seat: 0, ...g.white },
      { seat: 1, ...g.black },
    ],
    spectators: 0,
    status: g.result === '*' ? 'playing' : 'finished',
    game: null,
    gameNumber: g.number,
    fen: g.startFen || null,
    mode: g.mode,
  };
  const state: GameState = {
    t: 'state',
    game: g.game,
    gameId: g.gameId,
    number: g.number,
    v: g.moves.length,
    variant: g.variant,
    white: 0,
    black: 1,
    fen: g.fen,
    turn: g.turn,
    check: g.check,
    lastMove: g.moves.length ? g.moves[g.moves.length - 1] : null,
    moves: g.moves,
    san: g.san,
    sanThai: g.sanThai,
    legal: g.legal,
    count: g.count,
    canCount: { w: false, b: false },
    canStop: { w: false, b: false },
    canClaim: false,
    drawOffer: null,
    repetitions: g.repetitions,
    result: g.result,
    reason: g.reason,
  };
  return { party, state };
}
