// A FEN's piece placement as a map of squares, and back. Which piece goes where along a
// game comes from the rules core (core.ts), never from here: this decides no rule.

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

export const START_FEN = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1';

export function pieceAt(fen: string, sq: string): string | undefined {
  return parsePlacement(fen).get(sq);
}
