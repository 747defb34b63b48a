// Our own piece set, drawn in the style of Thai turned-wood pieces: the Khun a tall
// crowned spire, the Met a round bud, the Khon a lotus bud, the Ma a horse's head, the
// Ruea a boat-shaped block, the Bia a face-down cowrie shell (a dome) and the Bia Ngai the
// same shell turned over (a bowl whose flat face with the toothed opening is up, set in a
// gold ring), so a promoted pawn never looks like a Met. Each is an SVG in a 100×100 box,
// bottom-aligned, in pieces/ as the White piece; Black's is the same drawing in the
// colours of pieces/black.json. The server draws its position images (link previews)
// from the same files.

import boardArt from '../pieces/board.svg?raw';
import blackColours from '../pieces/black.json';
import k from '../pieces/k.svg?raw';
import m from '../pieces/m.svg?raw';
import n from '../pieces/n.svg?raw';
import p from '../pieces/p.svg?raw';
import pm from '../pieces/pm.svg?raw';
import r from '../pieces/r.svg?raw';
import s from '../pieces/s.svg?raw';

export type RoleId = 'k' | 'm' | 's' | 'n' | 'r' | 'p' | 'pm';
export type Side = 'white' | 'black';

const ART: Record<RoleId, string> = { k, m, s, n, r, p, pm };

export function pieceSvg(role: RoleId, side: Side): string {
  let svg = ART[role].trim();
  if (side === 'black') for (const [white, black] of Object.entries(blackColours)) svg = svg.split(white).join(black);
  return svg;
}

export function pieceUrl(role: RoleId, side: Side): string {
  return `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg(role, side))}")`;
}

// The board: one uncheckered wooden field with dark grid lines, as Thai boards are.
function boardSvg(): string {
  return boardArt.trim();
}

/** The CSS that gives chessgroundx's <piece> elements our images (and the board its look). */
export function pieceCss(): string {
  const roles: [RoleId, string][] = [
    ['k', 'k-piece'],
    ['m', 'm-piece'],
    ['s', 's-piece'],
    ['n', 'n-piece'],
    ['r', 'r-piece'],
    ['p', 'p-piece'],
  ];
  let css = '';
  for (const side of ['white', 'black'] as Side[]) {
    for (const [id, cls] of roles) {
      css += `.cg-wrap piece.${cls}.${side}{background-image:${pieceUrl(id, side)}}\n`;
    }
    // A promoted pawn: FEN "M~" gives role m-piece with the class "promoted".
    css += `.cg-wrap piece.m-piece.promoted.${side}{background-image:${pieceUrl('pm', side)}}\n`;
  }
  const board = `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(boardSvg())}")`;
  css += `.cg-wrap.thai-board cg-board{background-color:#ddb273;background-image:${board};background-size:100% 100%}\n`;
  return css;
}

let installed = false;
export function installPieceCss(): void {
  if (installed) return;
  installed = true;
  const style = document.createElement('style');
  style.id = 'piece-set';
  style.textContent = pieceCss();
  document.head.appendChild(style);
}
