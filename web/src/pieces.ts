// Our own piece set, drawn in the style of Thai turned-wood pieces: the Khun a tall
// crowned spire, the Met a round bud, the Khon a lotus bud, the Ma a horse's head, the
// Ruea a boat-shaped block, the Bia a face-down cowrie shell (a dome) and the Bia Ngai the
// same shell turned over (a bowl whose flat face with the toothed opening is up, set in a
// gold ring), so a promoted pawn never looks like a Met. Each is an SVG in a 100×100 box,
// bottom-aligned.

export type RoleId = 'k' | 'm' | 's' | 'n' | 'r' | 'p' | 'pm';
export type Side = 'white' | 'black';

interface Palette {
  fill: string;
  shade: string;
  line: string;
  accent: string;
}

const PAL: Record<Side, Palette> = {
  white: { fill: '#fbf1dc', shade: '#e3cfa6', line: '#3a2212', accent: '#b8862b' },
  black: { fill: '#3b2a22', shade: '#241812', line: '#0e0806', accent: '#e0b659' },
};

function plinth(p: Palette, w = 56): string {
  const x0 = 50 - w / 2;
  return (
    `<rect x="${x0}" y="83" width="${w}" height="10" rx="3" fill="${p.fill}" stroke="${p.line}" stroke-width="3"/>` +
    `<rect x="${x0 + 5}" y="77" width="${w - 10}" height="8" rx="2" fill="${p.shade}" stroke="${p.line}" stroke-width="3"/>`
  );
}

function body(p: Palette, topY: number, topHalf: number): string {
  // A bell-shaped turned body from the collar (y 77) up to topY.
  const l = 50 - topHalf;
  const r = 50 + topHalf;
  return (
    `<path d="M31 78 C31 ${topY + 14} ${l - 4} ${topY + 8} ${l} ${topY} L${r} ${topY} ` +
    `C${r + 4} ${topY + 8} 69 ${topY + 14} 69 78 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M38 74 C38 ${topY + 16} ${l} ${topY + 10} ${l + 2} ${topY + 4}" fill="none" stroke="${p.shade}" stroke-width="3" stroke-linecap="round"/>`
  );
}

function ring(p: Palette, y: number, half: number, h = 5): string {
  return `<rect x="${50 - half}" y="${y}" width="${half * 2}" height="${h}" rx="2.5" fill="${p.shade}" stroke="${p.line}" stroke-width="2.6"/>`;
}

function khun(p: Palette): string {
  return (
    plinth(p) +
    body(p, 56, 10) +
    ring(p, 51, 13) +
    // tiered spire (a crown like a chedi)
    `<path d="M41 51 L44 40 L56 40 L59 51 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    ring(p, 36, 9, 4.5) +
    `<path d="M44 36 L46.5 27 L53.5 27 L56 36 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    ring(p, 23.5, 6, 4) +
    `<path d="M47 23.5 L50 8 L53 23.5 Z" fill="${p.accent}" stroke="${p.line}" stroke-width="2.6" stroke-linejoin="round"/>` +
    `<circle cx="50" cy="7" r="2.6" fill="${p.accent}" stroke="${p.line}" stroke-width="2"/>`
  );
}

function met(p: Palette): string {
  return (
    plinth(p) +
    body(p, 60, 9) +
    ring(p, 55, 12) +
    `<circle cx="50" cy="42" r="13" fill="${p.fill}" stroke="${p.line}" stroke-width="3"/>` +
    `<path d="M41 38 A9 9 0 0 1 50 32" fill="none" stroke="${p.shade}" stroke-width="2.6" stroke-linecap="round"/>` +
    `<path d="M46 29.5 L50 21 L54 29.5 Z" fill="${p.accent}" stroke="${p.line}" stroke-width="2.4" stroke-linejoin="round"/>`
  );
}

function khon(p: Palette): string {
  return (
    plinth(p) +
    body(p, 58, 10) +
    ring(p, 53, 13) +
    // lotus petals and the pointed bud
    `<path d="M37 53 C37 45 44 42 50 46 C56 42 63 45 63 53 Z" fill="${p.shade}" stroke="${p.line}" stroke-width="2.8" stroke-linejoin="round"/>` +
    `<path d="M50 18 C60 30 62 40 50 48 C38 40 40 30 50 18 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M50 26 C54 32 55 38 50 42" fill="none" stroke="${p.accent}" stroke-width="2.4" stroke-linecap="round"/>`
  );
}

function ma(p: Palette): string {
  return (
    plinth(p) +
    `<path d="M33 78 C33 70 36 64 40 60 C34 56 30 48 32 40 C34 31 41 24 47 20 L47 12 L53 19 ` +
    `C62 20 70 28 75 38 C78 44 77 50 72 51 C68 52 64 49 60 47 L57 50 C63 56 67 66 67 78 Z" ` +
    `fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    // mane
    `<path d="M46 22 C40 28 37 36 38 46 C39 52 41 56 44 60" fill="none" stroke="${p.accent}" stroke-width="4" stroke-linecap="round"/>` +
    `<circle cx="60" cy="31" r="2.8" fill="${p.line}"/>` +
    `<path d="M72 44 L69 45" stroke="${p.line}" stroke-width="2.4" stroke-linecap="round"/>`
  );
}

function ruea(p: Palette): string {
  return (
    plinth(p) +
    // a block with a flared, boat-like top
    `<path d="M34 78 L36 48 L64 48 L66 78 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M26 36 C34 42 66 42 74 36 L70 49 C62 52 38 52 30 49 Z" fill="${p.shade}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M40 37 L41 28 L59 28 L60 37 C56 39 44 39 40 37 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M41 58 L59 58 M42 67 L58 67" stroke="${p.accent}" stroke-width="2.6" stroke-linecap="round"/>`
  );
}

function bia(p: Palette): string {
  // a cowrie shell lying face down: a smooth dome with spots
  return (
    `<ellipse cx="50" cy="86" rx="34" ry="7" fill="${p.shade}" stroke="${p.line}" stroke-width="3"/>` +
    `<path d="M17 85 C17 44 83 44 83 85 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M27 76 C29 62 40 56 50 56" fill="none" stroke="${p.shade}" stroke-width="3.5" stroke-linecap="round"/>` +
    `<circle cx="41" cy="70" r="3.2" fill="${p.accent}"/><circle cx="54" cy="65" r="3.2" fill="${p.accent}"/>` +
    `<circle cx="64" cy="74" r="3.2" fill="${p.accent}"/><circle cx="51" cy="77" r="2.8" fill="${p.accent}"/>`
  );
}

function biaNgai(p: Palette): string {
  // the same shell turned over: a bowl with its flat, toothed face up, set in a gold ring
  const teeth = [31, 36, 41, 46, 51, 56, 61, 66]
    .map((x) => {
      const half = 4.2 - Math.abs(x + 2.5 - 50) / 9;
      return `<path d="M${x + 2.5} ${(61 - half).toFixed(1)} V${(61 + half).toFixed(1)}" stroke="${p.accent}" stroke-width="2.2" stroke-linecap="round"/>`;
    })
    .join('');
  return (
    `<ellipse cx="50" cy="86" rx="32" ry="6.5" fill="${p.accent}" stroke="${p.line}" stroke-width="3"/>` +
    `<path d="M16 60 C16 80 32 89 50 89 C68 89 84 80 84 60 Z" fill="${p.fill}" stroke="${p.line}" stroke-width="3" stroke-linejoin="round"/>` +
    `<path d="M24 70 C27 78 34 82 42 84" fill="none" stroke="${p.shade}" stroke-width="3.5" stroke-linecap="round"/>` +
    `<ellipse cx="50" cy="60" rx="34" ry="13" fill="${p.shade}" stroke="${p.line}" stroke-width="3"/>` +
    `<path d="M25 61 C38 55 62 55 75 61 C62 67 38 67 25 61 Z" fill="${p.line}" stroke="${p.line}" stroke-width="2" stroke-linejoin="round"/>` +
    teeth
  );
}

const DRAW: Record<RoleId, (p: Palette) => string> = {
  k: khun,
  m: met,
  s: khon,
  n: ma,
  r: ruea,
  p: bia,
  pm: biaNgai,
};

export function pieceSvg(role: RoleId, side: Side): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">${DRAW[role](PAL[side])}</svg>`;
}

export function pieceUrl(role: RoleId, side: Side): string {
  return `url("data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg(role, side))}")`;
}

// The board: one uncheckered wooden field with dark grid lines, as Thai boards are.
function boardSvg(): string {
  let lines = '';
  for (let i = 0; i <= 8; i++) {
    const v = i * 100;
    lines += `<path d="M${v} 0 V800 M0 ${v} H800" stroke="#5b3a1a" stroke-width="${i === 0 || i === 8 ? 6 : 2.5}"/>`;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800" preserveAspectRatio="none">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">` +
    `<stop offset="0" stop-color="#e9c58a"/><stop offset="0.5" stop-color="#ddb273"/><stop offset="1" stop-color="#e6bf82"/>` +
    `</linearGradient></defs><rect width="800" height="800" fill="url(#g)"/>` +
    // faint grain
    `<path d="M0 130 C200 110 400 150 800 120 M0 330 C250 350 500 300 800 340 M0 530 C300 510 500 560 800 520 M0 730 C200 750 600 700 800 740" ` +
    `stroke="#c99a58" stroke-width="5" fill="none" opacity="0.35"/>` +
    lines +
    `</svg>`
  );
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
