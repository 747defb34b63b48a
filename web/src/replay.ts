// Piece placement along a game's move list, for stepping through the moves. This decides
// no rule: it only carries each piece from its square to its destination as the server's
// record says (a capture removes what stood there; a pawn that reaches its sixth rank is
// shown turned over, as the server's FEN shows it). The result is checked against the
// server's FEN for the latest position; if they ever differ, stepping is turned off.

export type Board = Map<string, string>; // square -> FEN piece ("P", "m~", …)

export function parsePlacement(fen: string): Board {
  const b: Board = new Map();
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    const rank = 8 - i;
    let file = 0;
    let last = '';
    for (const c of row) {
      if (c >= '0' && c <= '9') {
        file += Number(c);
      } else if (c === '~') {
        if (last) b.set(last, b.get(last) + '~');
      } else {
        last = 'abcdefgh'[file] + rank;
        b.set(last, c);
        file++;
      }
    }
  });
  return b;
}

export function placement(b: Board): string {
  const rows: string[] = [];
  for (let rank = 8; rank >= 1; rank--) {
    let row = '';
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = b.get('abcdefgh'[f] + rank);
      if (!p) {
        empty++;
        continue;
      }
      if (empty) row += empty;
      empty = 0;
      row += p;
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return rows.join('/');
}

export function applyMove(b: Board, move: string): Board {
  const from = move.slice(0, 2);
  const to = move.slice(2, 4);
  const nb = new Map(b);
  const p = nb.get(from);
  if (!p) return nb;
  nb.delete(from);
  let q = p;
  if (p === 'P' && to[1] === '6') q = 'M~';
  if (p === 'p' && to[1] === '3') q = 'm~';
  nb.set(to, q);
  return nb;
}

/** Placements after each ply (index 0 = start), or null if they do not end at `fen`. */
export function placements(startFen: string, moves: string[], fen: string): string[] | null {
  let b = parsePlacement(startFen);
  const out = [placement(b)];
  for (const m of moves) {
    b = applyMove(b, m);
    out.push(placement(b));
  }
  return out[out.length - 1] === placement(parsePlacement(fen)) ? out : null;
}

export const START_FEN = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1';

export function pieceAt(fen: string, sq: string): string | undefined {
  return parsePlacement(fen).get(sq);
}
