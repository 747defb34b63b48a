// How squares and moves are written on screen. The server sends SAN with Latin letters
// (K M S N R, squares a1–h8, docs/rules.md §7); the player sees one notation per language, the
// same as the coordinates drawn beside the board:
//   th: piece letters ข ม็ ค ม ร, files ก ข ค ง จ ฉ ช ญ, ranks ๑–๘
//   km: piece letters ស្ត ន គ ស ទ, files ក ខ គ ឃ ង ច ឆ ជ, ranks ១–៨
//   en: the SAN as sent, files a–h, ranks 1–8
// A player may choose "international" instead: Latin SAN and a–h / 1–8 in every language.
// The choice is kept in localStorage, like the language.
//
// In Thai and Khmer a capture is written × and a promotion =ม็ / =ន. Some piece letters are
// also file letters there (ข and ค in Thai, គ in Khmer), so a pawn capture, and a piece told
// apart by its rank, name the whole square they leave (ข๓×ค๔): a leading letter is then a
// piece exactly when no digit follows it. See docs/rules-notes.md.
import { h, replace } from './dom';
import { lang, strings, t } from './i18n';
import type { RoleId } from './pieces';

export type NotationPref = 'local' | 'intl';
export type Script = 'latin' | 'th' | 'km';

const KEY = 'makruk.notation';

interface Table {
  files: string[];
  ranks: string[];
  /** By SAN letter: K M S N R. */
  pieces: Record<string, string>;
  capture: string;
}

const TABLES: Record<Script, Table> = {
  latin: {
    files: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    ranks: ['1', '2', '3', '4', '5', '6', '7', '8'],
    pieces: { K: 'K', M: 'M', S: 'S', N: 'N', R: 'R' },
    capture: 'x',
  },
  th: {
    files: ['ก', 'ข', 'ค', 'ง', 'จ', 'ฉ', 'ช', 'ญ'],
    ranks: ['๑', '๒', '๓', '๔', '๕', '๖', '๗', '๘'],
    pieces: { K: 'ข', M: 'ม็', S: 'ค', N: 'ม', R: 'ร' },
    capture: '×',
  },
  km: {
    files: ['ក', 'ខ', 'គ', 'ឃ', 'ង', 'ច', 'ឆ', 'ជ'],
    ranks: ['១', '២', '៣', '៤', '៥', '៦', '៧', '៨'],
    pieces: { K: 'ស្ត', M: 'ន', S: 'គ', N: 'ស', R: 'ទ' },
    capture: '×',
  },
};

/** The SAN letter of each piece the board can label (a promoted pawn is written M). */
const ROLE_LETTER: Record<RoleId, string> = { k: 'K', m: 'M', s: 'S', n: 'N', r: 'R', p: '', pm: 'M' };

function readPref(): NotationPref {
  try {
    return localStorage.getItem(KEY) === 'intl' ? 'intl' : 'local';
  } catch {
    return 'local'; // storage may be blocked
  }
}

let pref: NotationPref = readPref();
const listeners = new Set<() => void>();

export function notationPref(): NotationPref {
  return pref;
}

export function setNotationPref(p: NotationPref): void {
  if (p === pref) return;
  pref = p;
  try {
    localStorage.setItem(KEY, p);
  } catch {
    /* ignore */
  }
  for (const f of listeners) f();
}

export function onNotationChange(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The script that squares and moves are written in now. */
export function script(): Script {
  const l = lang();
  return pref === 'intl' || l === 'en' ? 'latin' : l;
}

/** A square ("c3") as the board labels it now ("ค๓", "គ៣", "c3"). */
export function squareText(sq: string, sc: Script = script()): string {
  const f = sq.charCodeAt(0) - 97;
  const r = sq.charCodeAt(1) - 49;
  if (f < 0 || f > 7 || r < 0 || r > 7) return sq;
  const tb = TABLES[sc];
  return tb.files[f] + tb.ranks[r];
}

/** A move number in the move list ("12." in the digits of the notation: "๑๒.", "១២."). */
export function moveNumber(n: number, sc: Script = script()): string {
  const ds = sc === 'latin' ? '0123456789' : sc === 'th' ? '๐๑๒๓๔๕๖๗๘๙' : '០១២៣៤៥៦៧៨៩';
  return `${String(n).replace(/[0-9]/g, (d) => ds[Number(d)])}.`;
}

const SAN_RE = /^([KMSNR])?([a-h])?([1-8])?(x)?([a-h][1-8])(=M)?([+#])?$/;

/**
 * A move as the player reads it: the one place that turns the server's SAN into text.
 * `uci` (the same move as from- and to-square, "b3c4") lets the Thai and Khmer forms name a
 * whole from-square where they need it.
 */
export function moveText(san: string, uci?: string, sc: Script = script()): string {
  if (sc === 'latin') return san;
  const m = SAN_RE.exec(san);
  if (!m) return san;
  const [, piece, dFile, dRank, capture, to, promo, mark] = m;
  const tb = TABLES[sc];
  const from = uci && /^[a-h][1-8]/.test(uci) ? uci.slice(0, 2) : null;
  let s = piece ? tb.pieces[piece] : '';
  if (!piece && dFile) {
    // a pawn capture: the whole square it leaves
    s += from ? squareText(from, sc) : tb.files[dFile.charCodeAt(0) - 97];
  } else if (dFile && dRank) {
    s += squareText(dFile + dRank, sc);
  } else if (dFile) {
    s += tb.files[dFile.charCodeAt(0) - 97];
  } else if (dRank) {
    s += from ? squareText(from, sc) : tb.ranks[Number(dRank) - 1];
  }
  if (capture) s += tb.capture;
  s += squareText(to, sc);
  if (promo) s += `=${tb.pieces.M}`;
  if (mark) s += mark;
  return s;
}

/**
 * The name shown on each piece when labels are on. In Thai and Khmer notation the name
 * begins with the move list's letter already (ม้า, ม); otherwise the label puts the SAN
 * letter before the name ("N Ma", "N ม้า"), so the labels and the move list agree.
 */
export function pieceLabels(variant: string): Record<RoleId, string> {
  const names = strings().short[variant === 'ouk' ? 'ouk' : 'makruk'] as Record<RoleId, string>;
  const withLetters = script() === 'latin';
  const out = {} as Record<RoleId, string>;
  for (const k of Object.keys(names) as RoleId[]) {
    const letter = ROLE_LETTER[k];
    out[k] = withLetters && letter ? `${letter} ${names[k]}` : names[k];
  }
  return out;
}

/**
 * Writes the board's edge labels in the current script. chessgroundx draws a–h / 1–8 (or
 * the Thai ones) itself; this sets every script the same way, files along the bottom row
 * and ranks along the side, in the order chessgroundx lays them (a→h, 1→8).
 */
export function labelCoords(container: HTMLElement): void {
  const tb = TABLES[script()];
  container.querySelectorAll('coords').forEach((row) => {
    const list = row.classList.contains('side') ? tb.ranks : row.classList.contains('bottom') ? tb.files : null;
    if (!list) return;
    row.querySelectorAll('coord').forEach((c, i) => {
      if (i < list.length && c.textContent !== list[i]) c.textContent = list[i];
    });
  });
}

/** The notation picker ("Notation: as the language / international"), filled into `box`. */
export function fillNotationPicker(box: HTMLElement): void {
  const btn = (p: NotationPref, label: string) =>
    h(
      'button',
      {
        type: 'button',
        'data-value': p,
        'aria-pressed': String(pref === p),
        onclick: () => setNotationPref(p),
      },
      label,
    );
  box.dataset.value = pref;
  replace(
    box,
    h('span', { class: 'label', id: 'notation-label' }, t('notation')),
    h(
      'div',
      { class: 'seg', role: 'group', 'aria-labelledby': 'notation-label' },
      btn('local', t('notationLocal')),
      btn('intl', t('notationIntl')),
    ),
  );
}
