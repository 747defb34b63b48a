// The long texts of the "learn the game" pages (/learn/makruk and /learn/ouk), in Thai,
// English and Khmer. They restate the project's rules (docs/rules.md) for players.
//
// Placeholders, filled in by learn.ts:
//   {k} {m} {s} {n} {r} {p} {pm}  the piece names of the page's game, as the app names them
//   {claim} {offerDraw} {drawAccept} {startCounting} {stopCounting} {auto} {declare} {live} {turn}
//                                 button and setting names, taken from i18n.ts
//   [d1]                          a square, written in the notation the player reads
// Thai text uses Arabic digits, as the rest of the Thai interface does; Khmer uses Khmer
// digits.
import type { Lang } from '../shared/i18n';
import type { RoleId } from '../shared/pieces';
import type { Variant } from '../shared/api';

type ByVariant<T> = Record<Variant, T>;

export interface Example {
  title: string;
  lines: string[];
}

export interface LearnText {
  title: ByVariant<string>;
  intro: ByVariant<string>;
  otherGame: string;
  contents: string;
  sec: { quick: string; pieces: string; leaps: string; lesson: string; ending: string; count: string; faq: string };
  quick: ByVariant<[string, string][]>;
  setupTitle: string;
  setupCaption: string;
  piecesIntro: string;
  legendTitle: string;
  legend: { move: string; capture: string; leap: string; band: string };
  /** Shown after a piece's name in its heading (English only: "Ma (knight)"). */
  alias: Partial<Record<RoleId, string>>;
  piece: Record<RoleId, string>;
  rueaCaption: string;
  pawnCaption: string;
  promoTitle: string;
  promoCaption: string;
  alt: { on: string; moves: string; captures: string; leaps: string; band: string; side: string };
  leaps: { intro: string; kingTitle: string; king: string; kingLose: string; kingCaption: string; neangTitle: string; neang: string; neangCaption: string };
  lesson: {
    intro: string;
    pick: string;
    goal: string;
    pawnGoal: string;
    progress: string;
    done: string;
    pawnDone: string;
    again: string;
    squareGoal: string;
    squareVisited: string;
    boardLabel: string;
  };
  ending: ByVariant<string[]>;
  count: {
    intro: string;
    boardTitle: string;
    board: ByVariant<string>;
    pieceTitle: string;
    piece: ByVariant<string>;
    limitsTitle: string;
    limitsCaption: string;
    limitsMaterial: string;
    limitsLimit: string;
    /** The hunting side's pieces, row by row, in the order of LIMITS in learn.ts. */
    limits: string[];
    rulesTitle: string;
    rules: string[];
    switchRule: ByVariant<string>;
    after: string[];
    examplesTitle: string;
    examples: ByVariant<Example[]>;
  };
  house: {
    intro: string;
    defaultIs: string;
    friendsOnly: string;
    countStart: string;
    showLegal: string;
    swapColors: string;
    labels: string;
    tableMode: string;
    pickTime: string;
  };
  faq: ByVariant<{ q: string; a: string }[]>;
  readyTitle: string;
  /** Between the items of a list of squares or pieces. */
  sep: string;
}

// ------------------------------------------------------------------ English

const en: LearnText = {
  title: { makruk: 'Learn Makruk', ouk: 'Learn Ouk Chatrang' },
  intro: {
    makruk:
      'Makruk is Thai chess. This page has all you need to play: the rules in short, how each piece moves, the endgame count, the table settings, and a small lesson for each piece.',
    ouk:
      'Ouk Chatrang is the chess of Cambodia, a close relative of Makruk. This page has all you need to play: the rules in short, how each piece moves, the special first moves, the endgame count, the table settings, and a small lesson for each piece.',
  },
  otherGame: 'The other game:',
  contents: 'On this page',
  sec: {
    quick: 'In 30 seconds',
    pieces: 'The pieces',
    leaps: 'Special first moves',
    lesson: 'Try each piece',
    ending: 'How a game ends',
    count: 'The count',
    faq: 'Questions and answers',
  },
  quick: {
    makruk: [
      ['Setup', 'An 8×8 board with 16 pieces each. The {p} stand on each side’s third rank. White moves first.'],
      ['Turns', 'Move one piece, then your opponent moves. Landing on an enemy piece captures it.'],
      ['Pieces', 'Only the {r} moves far. The {k}, {m}, {s} and {p} step one square at a time; the {n} jumps.'],
      ['Win', 'Checkmate the opposing {k}: it is attacked and has no way out.'],
      ['Endgame', 'Once no unpromoted {p} is left, the side with fewer pieces counts its moves. If it reaches the limit without being checkmated, the game is a draw.'],
    ],
    ouk: [
      ['Setup', 'An 8×8 board with 16 pieces each. The {p} stand on each side’s third rank. White moves first.'],
      ['Turns', 'Move one piece, then your opponent moves. Landing on an enemy piece captures it.'],
      ['First moves', 'On its first move the {k} may jump like a knight to the side, and the {m} may jump two squares forward.'],
      ['Win', 'Checkmate the opposing {k}: it is attacked and has no way out.'],
      ['Endgame', 'As soon as a side has three pieces or fewer, and fewer than its opponent, it counts its moves. If it reaches the limit without being checkmated, the game is a draw.'],
    ],
  },
  setupTitle: 'The starting position',
  setupCaption:
    'White’s {k} stands on [d1] with its {m} on [e1]; Black’s {m} stands on [d8] and its {k} on [e8], so the two {k}s do not face each other. Rank 2 and rank 7 start empty.',
  piecesIntro: 'Each diagram shows one piece on a nearly empty board, with the squares it can reach marked.',
  legendTitle: 'Marks on the diagrams',
  legend: {
    move: 'a square it can move to',
    capture: 'an enemy piece it can capture',
    leap: 'a first-move jump',
    band: 'the rank where a {p} is promoted',
  },
  alias: { k: 'king', n: 'knight', r: 'rook', p: 'pawn', pm: 'promoted pawn' },
  piece: {
    k: 'The {k} moves one square in any of the eight directions. It may never move onto a square the enemy attacks. There is no castling.',
    m: 'The {m} moves one square diagonally, forward or back. It is nothing like a chess queen: one step is all it has.',
    s: 'The {s} moves one square diagonally in any direction, or one square straight forward: five squares in all. It cannot step sideways or straight back.',
    n: 'The {n} moves like a chess knight: two squares one way and then one square to the side. It jumps over whatever stands between.',
    r: 'The {r} slides any distance along a rank or a file, like a chess rook. It is the only long-range piece and the strongest one.',
    p: 'The {p} moves one square straight forward to an empty square, and captures one square diagonally forward. There is no double step and no en passant.',
    pm: 'A {p} that reaches its sixth rank turns over at once and becomes a {pm}, which moves like the {m}: one square diagonally.',
  },
  rueaCaption: 'It stops in front of its own pieces, and it may capture the first enemy piece in its way.',
  pawnCaption: 'It moves straight ahead but captures diagonally.',
  promoTitle: 'Promotion',
  promoCaption:
    'White’s {p} is promoted on rank 6, Black’s on rank 3 (the rank where the opponent’s {p} started). It happens at once, by a step or a capture, with no choice to make.',
  alt: {
    on: '{piece} on {sq}.',
    moves: 'It can move to {list}.',
    captures: 'It can capture on {list}.',
    leaps: 'On its first move it can jump to {list}.',
    band: 'Rank {rank} is the promotion rank.',
    side: '{color}: {list}.',
  },
  leaps: {
    intro: 'In Ouk Chatrang two pieces have a special first move. Neither jump can capture, and neither has to be used.',
    kingTitle: 'The {k}’s jump',
    king:
      'On its first move, if it is not in check, the {k} may jump like a knight onto the next rank forward, two files to the side: White from [d1] to [b2] or [f2], Black from [e8] to [c7] or [g7]. The square must be empty, and the {k} may not jump into check.',
    kingLose:
      'The {k} loses this right once it has moved, or once an enemy {r} makes a move that ends on the {k}’s rank or file, even with pieces standing between them. A {r} that comes to bear without moving (because another piece steps out of its way) does not take the right away.',
    kingCaption: 'White’s {k} on [d1] at the start: steps to [c2], [d2] and [e2]; first-move jumps to [b2] and [f2].',
    neangTitle: 'The {m}’s jump',
    neang:
      'On its first move the {m} may jump two squares straight forward to an empty square, over whatever stands between: for example from [e1] to [e3] once the {p} there has moved on. This jump cannot capture, but it may be used to block a check. The right is lost once the {m} has moved or has been captured.',
    neangCaption: 'White’s {m} on [e1] after the {p} on [e3] has moved on: steps to [d2] and [f2]; first-move jump to [e3].',
  },
  lesson: {
    intro: 'Pick a piece, then tap each marked square to move the piece there. After each move it goes back to its square. The lesson is done when every mark has been visited.',
    pick: 'Pick a piece',
    goal: 'Move the {piece} to every marked square.',
    pawnGoal: 'Walk the {p} forward, one square at a time, to rank 6.',
    progress: '{n} of {total} squares',
    done: 'Well done! The {piece} has visited every marked square.',
    pawnDone: 'Well done! The {p} reached rank 6 and became a {pm}.',
    again: 'Again',
    squareGoal: '{sq}: move the {piece} here',
    squareVisited: '{sq}: visited',
    boardLabel: 'Lesson board: {piece} on {sq}',
  },
  ending: {
    makruk: [
      'Checkmate: the side whose {k} is in check and has no legal move loses.',
      'Resignation: either player may resign at any time.',
      'Agreement: one player offers a draw (“{offerDraw}”) and the other accepts it (“{drawAccept}”). An offer stands until the opponent answers it or makes a move.',
      'Stalemate: a side that has no legal move but is not in check: a draw.',
      'Only the two {k}s are left: a draw at once.',
      'The same position (the same pieces on the same squares, the same side to move) for the third time: a draw at once.',
      'The count reaches its limit: a draw (see the count below).',
      'A turn-based table with no move for 45 days ends with no winner or loser.',
      'There is no 50-move rule.',
    ],
    ouk: [
      'Checkmate: the side whose {k} is in check and has no legal move loses.',
      'Resignation: either player may resign at any time.',
      'Agreement: one player offers a draw (“{offerDraw}”) and the other accepts it (“{drawAccept}”). An offer stands until the opponent answers it or makes a move.',
      'Stalemate: a side that has no legal move but is not in check: a draw.',
      'Only the two {k}s are left: a draw at once.',
      'The same position for the third time or later: either player may claim a draw with the “{claim}” button. The position includes which first-move jumps are still allowed.',
      'Neither side can ever checkmate: a draw at once. A side can still mate with a {r} or a {s}; with a {p} or a {n} while any piece besides the two {k}s is on the board; or with {m}s (promoted {p}s included) on both colours of square, counting the squares as on a chequered board.',
      'The count reaches its limit: a draw (see the count below).',
      'A turn-based table with no move for 45 days ends with no winner or loser.',
      'There is no 50-move rule.',
    ],
  },
  count: {
    intro:
      'With such short-stepping pieces, once the {p} are gone the stronger side often cannot force checkmate, and a game could go on for ever. The count puts a limit on it: the side being hunted counts its own moves, and if the count reaches its limit without checkmate, the game is a draw.',
    boardTitle: 'Board count',
    board: {
      makruk:
        'Once no unpromoted {p} is left on the board ({pm}s may remain) and the two sides have different numbers of pieces, the side with fewer pieces counts. Its count starts from 0, so its first counted move is 1, and the limit is 64. Pieces are counted with the {k}s.',
      ouk:
        'As soon as a side has three pieces or fewer (its {k} included) and fewer pieces than its opponent, that side counts, even with {p}s still on the board. Its count starts from 1, so its first counted move makes 2, and the limit is 64.',
    },
    pieceTitle: 'Piece count (a lone {k})',
    piece: {
      makruk:
        'When no unpromoted {p} is left and one side has only its {k} while the other side has more, the lone {k}’s side makes a piece count instead. It starts from the number of pieces on the board, both {k}s included. The limit depends on what the hunting side has (table below).',
      ouk:
        'When no unpromoted {p} is left and one side has only its {k} while the other side has more, the lone {k}’s side makes a piece count instead. It starts from the number of pieces on the board, both {k}s included, plus one. The limit depends on what the hunting side has (table below).',
    },
    limitsTitle: 'The limits',
    limitsCaption: 'Limits of the piece count. Use the smallest limit that applies.',
    limitsMaterial: 'The hunting side has',
    limitsLimit: 'Limit',
    limits: ['Two {r}s', 'One {r}', 'Two {s}s', 'Two {n}s', 'One {s}', 'Anything else: one {n}, or only {m}s (promoted {p}s included)'],
    rulesTitle: 'How the count runs',
    rules: [
      'The count is shown as n / L beside the counting side’s name: n is the count so far, L its limit.',
      'Only the counting side’s own moves add one. Captures reset neither the count nor the limit.',
      'When a move of the counting side makes the count reach the limit, the opponent has one last move: if it checkmates, it wins; otherwise the game is a draw.',
      'A piece count that would start at or beyond its limit is a draw at once.',
      'A board count stops when the counting side comes to have more pieces than its opponent (the same number is not more). With automatic counting, the other side’s count then starts at once if it qualifies.',
    ],
    switchRule: {
      makruk:
        'When the side making a board count is left with a lone {k} (and no unpromoted {p} remains), its count becomes a piece count, restarted from the number of pieces on the board at that moment, with its own limit.',
      ouk:
        'When the side making a board count is left with a lone {k} (and no unpromoted {p} remains), its count becomes a piece count, restarted from the number of pieces on the board at that moment plus one, with its own limit.',
    },
    after: [
      'Once a piece count runs, it keeps its count and its limit, whatever is captured later.',
      'How a count starts is a table setting: “{auto}” or “{declare}” (see the house rules below). With declared counting, if the counting side checkmates while its own count is still running, the game is a draw: press “{stopCounting}” first to play for the win.',
    ],
    examplesTitle: 'Two worked examples',
    examples: {
      makruk: [
        {
          title: 'Two {r}s against a lone {k}',
          lines: [
            'White has its {k} and two {r}s; Black has only its {k}. No {p} is left. There are 4 pieces on the board.',
            'Black makes a piece count. It starts at 4, and the limit for two {r}s is 8: the count shows 4 / 8.',
            'Black’s moves make it 5, 6, 7 and 8. After the Black move that makes 8, White has one last move.',
            'So White has 4 moves to checkmate. Had White kept two {r}s, two {s}s, two {n}s and a {m} (9 pieces with both {k}s), the count would start at 9, beyond the limit of 8: a draw at once.',
          ],
        },
        {
          title: 'A board count that becomes a piece count',
          lines: [
            'No {p} is left. White has {k}, {r} and {n} (3 pieces); Black has {k} and {s} (2 pieces).',
            'Black has fewer pieces, so Black makes a board count from 0 with the limit 64: White has 64 moves to checkmate.',
            'Say White captures the {s} when the count shows 20 / 64. Black now has a lone {k}, so the board count becomes a piece count. There are 4 pieces on the board, so it restarts at 4, and with one {r} the limit is 16: 4 / 16.',
            'Black’s moves make it 5 up to 16, so White now has 12 more moves to checkmate.',
          ],
        },
      ],
      ouk: [
        {
          title: 'Two {r}s against a lone {k}',
          lines: [
            'White has its {k} and two {r}s; Black has only its {k}. No {p} is left. There are 4 pieces on the board.',
            'Black makes a piece count. It starts at 4 + 1 = 5, and the limit for two {r}s is 8: the count shows 5 / 8.',
            'Black’s moves make it 6, 7 and 8. After the Black move that makes 8, White has one last move.',
            'So White has 3 moves to checkmate. Had White kept two {r}s, two {s}s, two {n}s and a {m} (9 pieces with both {k}s), the count would start at 9 + 1 = 10, beyond the limit of 8: a draw at once.',
          ],
        },
        {
          title: 'A board count that becomes a piece count',
          lines: [
            'No {p} is left. White has {k}, {r} and {n} (3 pieces); Black has {k} and {s} (2 pieces).',
            'Black has three pieces or fewer, and fewer than White, so Black makes a board count from 1 with the limit 64: White has 63 moves to checkmate. (This count would start even with {p}s on the board.)',
            'Say White captures the {s} when the count shows 20 / 64. Black now has a lone {k}, so the board count becomes a piece count. There are 4 pieces on the board, so it restarts at 4 + 1 = 5, and with one {r} the limit is 16: 5 / 16.',
            'Black’s moves make it 6 up to 16, so White now has 11 more moves to checkmate.',
          ],
        },
      ],
    },
  },
  house: {
    intro: 'Whoever opens a table chooses these settings on the new-table page. Here is what each one does.',
    defaultIs: 'Default: {v}',
    friendsOnly: 'Only for tables with friends.',
    countStart:
      '{auto}: counts start, switch and stop by themselves, and cannot be stopped; a checkmate by the counting side wins.\n{declare}: nothing starts by itself. The side that may count presses “{startCounting}”, and the counting side may press “{stopCounting}”. Neither button uses up a turn, and both work on either player’s turn. Starting again counts afresh. A checkmate while your own count still runs is a draw.',
    showLegal: 'When you pick up a piece, dots show the squares it can move to.',
    swapColors: 'The players change colours after every game, so the first move (White’s) goes to each in turn.',
    labels: 'Each piece carries its short name under its picture, for example “{n}”.',
    tableMode:
      '{live}: both players sit at the board at the same time.\n{turn}: make a move whenever you like, and we tell you when it is your turn. A turn-based table with no move for 45 days ends by itself, with no winner or loser.',
    pickTime:
      'Choose a date and time. Friends can join at once, and the game can be started from that time on. You can add it to your calendar.',
  },
  faq: {
    makruk: [
      { q: 'How many players?', a: 'Two. You can also play against the CPU (eight levels), and anyone with the link can watch.' },
      { q: 'How long does a game take?', a: 'About 20 minutes. There is no clock. A turn-based game can go on over days.' },
      { q: 'Do I need an account?', a: 'No. Open a table, send the link or the 6-character code, and play. Your friends need no account either.' },
      { q: 'Can I play on a phone?', a: 'Yes, with no app: just open the page in your phone’s browser. Players on phones and on computers can share a table.' },
      {
        q: 'Can we play without being online at the same time?',
        a: 'Yes: choose “{turn}” when you open the table. Make a move whenever you like, and we tell you when it is your turn. A table with no move for 45 days ends by itself, with no winner or loser.',
      },
      {
        q: 'What is the count beside a player’s name?',
        a: 'The endgame count, written n / L: the count so far and its limit. The side being hunted counts its own moves; when the count reaches the limit and the opponent’s last move is not checkmate, the game is a draw. See “The count” above.',
      },
    ],
    ouk: [
      { q: 'How many players?', a: 'Two. You can also play against the CPU (eight levels), and anyone with the link can watch.' },
      { q: 'How long does a game take?', a: 'About 20 minutes. There is no clock. A turn-based game can go on over days.' },
      { q: 'Do I need an account?', a: 'No. Open a table, send the link or the 6-character code, and play. Your friends need no account either.' },
      { q: 'Can I play on a phone?', a: 'Yes, with no app: just open the page in your phone’s browser. Players on phones and on computers can share a table.' },
      {
        q: 'Can we play without being online at the same time?',
        a: 'Yes: choose “{turn}” when you open the table. Make a move whenever you like, and we tell you when it is your turn. A table with no move for 45 days ends by itself, with no winner or loser.',
      },
      {
        q: 'What is the count beside a player’s name?',
        a: 'The endgame count, written n / L: the count so far and its limit. The side being hunted counts its own moves; when the count reaches the limit and the opponent’s last move is not checkmate, the game is a draw. See “The count” above.',
      },
      {
        q: 'How is it different from Makruk?',
        a: 'The {k} and the {m} have first-move jumps; a board count starts as soon as a side has three pieces or fewer, even with {p}s on the board; counts start one higher; a repeated position is a draw only when a player claims it; and a game in which neither side can checkmate is drawn at once.',
      },
    ],
  },
  readyTitle: 'Ready to play?',
  sep: ', ',
};

// ------------------------------------------------------------------ Thai

const th: LearnText = {
  title: { makruk: 'เรียนหมากรุกไทย', ouk: 'เรียนอุกจัตรังค์' },
  intro: {
    makruk:
      'หมากรุกไทยเป็นเกมกระดานสำหรับสองคน หน้านี้มีทุกอย่างที่ต้องรู้ก่อนเล่น ทั้งกติกาโดยย่อ วิธีเดินของหมากแต่ละตัว การนับ การตั้งค่าโต๊ะ และบทฝึกสั้นๆ สำหรับหมากแต่ละตัว',
    ouk:
      'อุกจัตรังค์คือหมากรุกของกัมพูชา เป็นญาติใกล้ชิดของหมากรุกไทย หน้านี้มีทุกอย่างที่ต้องรู้ก่อนเล่น ทั้งกติกาโดยย่อ วิธีเดินของหมากแต่ละตัว ตาเดินพิเศษในตาแรก การนับ การตั้งค่าโต๊ะ และบทฝึกสั้นๆ สำหรับหมากแต่ละตัว',
  },
  otherGame: 'อีกเกมหนึ่ง:',
  contents: 'ในหน้านี้',
  sec: {
    quick: 'รู้กติกาใน 30 วินาที',
    pieces: 'หมากแต่ละตัว',
    leaps: 'ตาเดินพิเศษในตาแรก',
    lesson: 'ลองเดินหมากแต่ละตัว',
    ending: 'เกมจบอย่างไร',
    count: 'การนับ',
    faq: 'คำถามที่พบบ่อย',
  },
  quick: {
    makruk: [
      ['ตั้งหมาก', 'กระดาน 8×8 ช่อง ฝ่ายละ 16 ตัว {p}ตั้งอยู่แถวที่สามของแต่ละฝ่าย ฝ่ายขาวเดินก่อน'],
      ['การเดิน', 'ผลัดกันเดินทีละตัว เดินไปลงช่องที่มีหมากของฝ่ายตรงข้ามคือการกินหมากตัวนั้น'],
      ['หมาก', 'มีแต่{r}ที่เดินได้ไกล {k} {m} {s} และ{p}เดินทีละช่อง ส่วน{n}กระโดดได้'],
      ['การชนะ', 'รุกจน{k}ของฝ่ายตรงข้าม คือ{k}ถูกรุกและไม่มีทางหนี'],
      ['ท้ายเกม', 'เมื่อไม่มี{p}คว่ำเหลืออยู่ ฝ่ายที่มีหมากน้อยกว่าจะนับตาเดินของตน ถ้านับครบเกณฑ์โดยไม่ถูกรุกจน เกมเสมอ'],
    ],
    ouk: [
      ['ตั้งหมาก', 'กระดาน 8×8 ช่อง ฝ่ายละ 16 ตัว {p}ตั้งอยู่แถวที่สามของแต่ละฝ่าย ฝ่ายขาวเดินก่อน'],
      ['การเดิน', 'ผลัดกันเดินทีละตัว เดินไปลงช่องที่มีหมากของฝ่ายตรงข้ามคือการกินหมากตัวนั้น'],
      ['ตาแรก', 'ในตาแรกของตัวเอง {k}กระโดดแบบม้าไปด้านข้างได้ และ{m}กระโดดตรงไปข้างหน้าสองช่องได้'],
      ['การชนะ', 'รุกจน{k}ของฝ่ายตรงข้าม คือ{k}ถูกรุกและไม่มีทางหนี'],
      ['ท้ายเกม', 'ทันทีที่ฝ่ายหนึ่งเหลือหมากสามตัวหรือน้อยกว่า และน้อยกว่าอีกฝ่าย ฝ่ายนั้นจะนับตาเดินของตน ถ้านับครบเกณฑ์โดยไม่ถูกรุกจน เกมเสมอ'],
    ],
  },
  setupTitle: 'ตำแหน่งเริ่มเกม',
  setupCaption:
    '{k}ขาวอยู่ที่ [d1] และ{m}ขาวอยู่ที่ [e1] ส่วน{m}ดำอยู่ที่ [d8] และ{k}ดำอยู่ที่ [e8] ขุนทั้งสองจึงไม่อยู่ในแนวเดียวกัน แถวที่ 2 และแถวที่ 7 ว่างตั้งแต่เริ่ม',
  piecesIntro: 'แต่ละภาพแสดงหมากหนึ่งตัวบนกระดานที่เกือบว่าง และทำเครื่องหมายช่องที่หมากตัวนั้นไปถึงได้',
  legendTitle: 'เครื่องหมายในภาพ',
  legend: {
    move: 'ช่องที่เดินไปได้',
    capture: 'หมากฝ่ายตรงข้ามที่กินได้',
    leap: 'ช่องที่กระโดดไปได้ในตาแรก',
    band: 'แถวที่{p}หงาย',
  },
  alias: {},
  piece: {
    k: '{k}เดินได้หนึ่งช่องทั้งแปดทิศ แต่เดินเข้าช่องที่ฝ่ายตรงข้ามคุมอยู่ไม่ได้ ไม่มีการเข้าป้อม',
    m: '{m}เดินทแยงหนึ่งช่อง จะไปข้างหน้าหรือถอยหลังก็ได้ ไม่เหมือนควีนของหมากรุกสากล เพราะเดินได้เพียงช่องเดียว',
    s: '{s}เดินทแยงหนึ่งช่องได้ทุกทิศ หรือเดินตรงไปข้างหน้าหนึ่งช่อง รวมห้าช่อง แต่เดินไปด้านข้างหรือถอยตรงไม่ได้',
    n: '{n}เดินเหมือนม้าในหมากรุกสากล คือตรงไปสองช่องแล้วหักออกข้างหนึ่งช่อง และกระโดดข้ามหมากที่ขวางอยู่ได้',
    r: '{r}เดินตรงไปตามแนวตั้งหรือแนวนอนได้ไกลเท่าที่ทางว่าง เหมือนเรือในหมากรุกสากล เป็นหมากตัวเดียวที่เดินได้ไกล และแรงที่สุด',
    p: '{p}เดินตรงไปข้างหน้าหนึ่งช่องสู่ช่องว่าง และกินทแยงไปข้างหน้าหนึ่งช่อง ไม่มีการเดินสองช่องและไม่มีการกินผ่าน',
    pm: '{p}ที่เดินถึงแถวที่หกของฝ่ายตน จะหงายเป็น{pm}ทันที และเดินเหมือน{m} คือทแยงหนึ่งช่อง',
  },
  rueaCaption: 'หยุดหน้าหมากฝ่ายเดียวกัน และกินหมากฝ่ายตรงข้ามตัวแรกที่ขวางทางได้',
  pawnCaption: 'เดินตรงไปข้างหน้า แต่กินทางทแยง',
  promoTitle: 'การหงายเบี้ย',
  promoCaption:
    '{p}ขาวหงายเมื่อถึงแถวที่ 6 ส่วน{p}ดำหงายเมื่อถึงแถวที่ 3 (แถวที่{p}ของอีกฝ่ายตั้งอยู่ตอนเริ่ม) เกิดขึ้นทันทีไม่ว่าจะเดินหรือกิน และไม่ต้องเลือกอะไร',
  alt: {
    on: '{piece}อยู่ที่ {sq}',
    moves: 'เดินไปได้ที่ {list}',
    captures: 'กินได้ที่ {list}',
    leaps: 'ในตาแรกกระโดดไปได้ที่ {list}',
    band: 'แถวที่ {rank} คือแถวที่เบี้ยหงาย',
    side: 'ฝ่าย{color}: {list}',
  },
  leaps: {
    intro: 'ในอุกจัตรังค์ หมากสองตัวมีตาเดินพิเศษในตาแรก การกระโดดทั้งสองแบบกินหมากไม่ได้ และไม่บังคับว่าต้องใช้',
    kingTitle: 'การกระโดดของ{k}',
    king:
      'ในตาแรกของ{k} ถ้าไม่ได้ถูกรุกอยู่ {k}กระโดดแบบม้าไปยังแถวถัดไปข้างหน้า ห่างออกไปด้านข้างสองช่องได้ ฝ่ายขาวจาก [d1] ไป [b2] หรือ [f2] ฝ่ายดำจาก [e8] ไป [c7] หรือ [g7] ช่องนั้นต้องว่าง และ{k}กระโดดเข้าที่ถูกรุกไม่ได้',
    kingLose:
      '{k}เสียสิทธิ์นี้เมื่อเดินไปแล้ว หรือเมื่อ{r}ของฝ่ายตรงข้ามเดินมาหยุดในแนวตั้งหรือแนวนอนเดียวกับ{k} แม้จะมีหมากขวางอยู่ก็ตาม แต่ถ้า{r}มาเล็งถึงโดยไม่ได้เดิน (เพราะหมากตัวอื่นหลบออกไป) สิทธิ์ยังอยู่',
    kingCaption: '{k}ขาวที่ [d1] ตอนเริ่มเกม เดินหนึ่งช่องไป [c2] [d2] [e2] และกระโดดในตาแรกไป [b2] หรือ [f2]',
    neangTitle: 'การกระโดดของ{m}',
    neang:
      'ในตาแรกของ{m} {m}กระโดดตรงไปข้างหน้าสองช่องสู่ช่องว่างได้ ข้ามหมากที่อยู่ระหว่างทาง เช่นจาก [e1] ไป [e3] เมื่อ{p}ที่ [e3] เดินขึ้นไปแล้ว การกระโดดนี้กินหมากไม่ได้ แต่ใช้บังการรุกได้ สิทธิ์นี้หมดไปเมื่อ{m}เดินแล้วหรือถูกกิน',
    neangCaption: '{m}ขาวที่ [e1] หลัง{p}ที่ [e3] เดินขึ้นไปแล้ว เดินทแยงไป [d2] [f2] และกระโดดในตาแรกไป [e3]',
  },
  lesson: {
    intro: 'เลือกหมาก แล้วแตะช่องที่มีเครื่องหมายเพื่อเดินหมากไปที่นั่น หลังเดินแต่ละครั้งหมากจะกลับที่เดิม บทฝึกจบเมื่อเดินไปครบทุกช่องที่มีเครื่องหมาย',
    pick: 'เลือกหมาก',
    goal: 'เดิน{piece}ไปให้ครบทุกช่องที่มีเครื่องหมาย',
    pawnGoal: 'เดิน{p}ขึ้นไปทีละช่องจนถึงแถวที่ 6',
    progress: 'ไปแล้ว {n} จาก {total} ช่อง',
    done: 'เก่งมาก! {piece}เดินไปครบทุกช่องแล้ว',
    pawnDone: 'เก่งมาก! {p}ถึงแถวที่ 6 และหงายเป็น{pm}แล้ว',
    again: 'เริ่มใหม่',
    squareGoal: '{sq} เดิน{piece}มาที่นี่',
    squareVisited: '{sq} มาแล้ว',
    boardLabel: 'กระดานฝึก: {piece}อยู่ที่ {sq}',
  },
  ending: {
    makruk: [
      'รุกจน: ฝ่ายที่{k}ถูกรุกและไม่มีตาเดินที่ถูกกติกาเป็นฝ่ายแพ้',
      'ยอมแพ้: ผู้เล่นฝ่ายใดก็ยอมแพ้ได้ทุกเมื่อ',
      'ตกลงเสมอ: ผู้เล่นฝ่ายหนึ่งขอเสมอ (“{offerDraw}”) และอีกฝ่ายรับ (“{drawAccept}”) คำขอยังอยู่จนกว่าอีกฝ่ายจะตอบหรือเดินหมาก',
      'อับ: ฝ่ายที่ไม่มีตาเดินแต่ไม่ได้ถูกรุก เกมเสมอ',
      'เหลือแต่{k}สองตัว: เสมอทันที',
      'ตำแหน่งเดิม (หมากชุดเดิมบนช่องเดิม และเป็นตาของฝ่ายเดิม) เกิดขึ้นเป็นครั้งที่สาม: เสมอทันที',
      'นับครบเกณฑ์: เสมอ (ดูหัวข้อการนับด้านล่าง)',
      'โต๊ะแบบผลัดกันเดินที่ไม่มีการเดินนาน 45 วัน จะจบลงโดยไม่มีผู้ชนะหรือผู้แพ้',
      'ไม่มีกติกา 50 ตา',
    ],
    ouk: [
      'รุกจน: ฝ่ายที่{k}ถูกรุกและไม่มีตาเดินที่ถูกกติกาเป็นฝ่ายแพ้',
      'ยอมแพ้: ผู้เล่นฝ่ายใดก็ยอมแพ้ได้ทุกเมื่อ',
      'ตกลงเสมอ: ผู้เล่นฝ่ายหนึ่งขอเสมอ (“{offerDraw}”) และอีกฝ่ายรับ (“{drawAccept}”) คำขอยังอยู่จนกว่าอีกฝ่ายจะตอบหรือเดินหมาก',
      'อับ: ฝ่ายที่ไม่มีตาเดินแต่ไม่ได้ถูกรุก เกมเสมอ',
      'เหลือแต่{k}สองตัว: เสมอทันที',
      'ตำแหน่งเดิมเกิดขึ้นเป็นครั้งที่สามหรือมากกว่า: ผู้เล่นฝ่ายใดก็กดปุ่ม “{claim}” ได้ ตำแหน่งนี้นับรวมสิทธิ์กระโดดในตาแรกที่ยังเหลืออยู่ด้วย',
      'ไม่มีฝ่ายใดรุกจนได้อีกแล้ว: เสมอทันที ฝ่ายหนึ่งยังรุกจนได้ถ้ามี{r}หรือ{s} หรือมี{p}หรือ{n}ขณะที่บนกระดานมีหมากอื่นนอกจากขุนสองตัว หรือมี{m} (รวม{p}ที่หงายแล้ว) อยู่บนช่องทั้งสองสี ถ้านับช่องแบบกระดานสลับสี',
      'นับครบเกณฑ์: เสมอ (ดูหัวข้อการนับด้านล่าง)',
      'โต๊ะแบบผลัดกันเดินที่ไม่มีการเดินนาน 45 วัน จะจบลงโดยไม่มีผู้ชนะหรือผู้แพ้',
      'ไม่มีกติกา 50 ตา',
    ],
  },
  count: {
    intro:
      'หมากส่วนใหญ่เดินได้ทีละช่อง เมื่อ{p}หมดกระดาน ฝ่ายที่เหนือกว่ามักบังคับรุกจนไม่ได้ และเกมอาจไม่มีวันจบ การนับจึงกำหนดเกณฑ์ไว้ ฝ่ายที่ถูกไล่นับตาเดินของตน ถ้านับครบเกณฑ์โดยไม่ถูกรุกจน เกมเสมอ',
    boardTitle: 'นับศักดิ์กระดาน',
    board: {
      makruk:
        'เมื่อบนกระดานไม่มี{p}คว่ำเหลืออยู่ ({pm}ยังอยู่ได้) และสองฝ่ายมีจำนวนหมากไม่เท่ากัน ฝ่ายที่มีหมากน้อยกว่าจะนับ เริ่มจาก 0 ตาแรกที่นับคือ 1 และเกณฑ์คือ 64 การนับจำนวนหมากรวม{k}ด้วย',
      ouk:
        'ทันทีที่ฝ่ายหนึ่งมีหมากสามตัวหรือน้อยกว่า (รวม{k}) และน้อยกว่าอีกฝ่าย ฝ่ายนั้นจะนับ แม้ยังมี{p}อยู่บนกระดาน เริ่มจาก 1 ตาแรกที่นับจึงเป็น 2 และเกณฑ์คือ 64',
    },
    pieceTitle: 'นับศักดิ์หมาก ({k}ตัวเดียว)',
    piece: {
      makruk:
        'เมื่อไม่มี{p}คว่ำเหลือ และฝ่ายหนึ่งเหลือ{k}ตัวเดียวขณะที่อีกฝ่ายมีมากกว่า ฝ่ายที่เหลือ{k}ตัวเดียวจะนับศักดิ์หมากแทน เริ่มจากจำนวนหมากทั้งหมดบนกระดาน รวม{k}ทั้งสองตัว เกณฑ์ขึ้นอยู่กับหมากของฝ่ายที่ไล่ (ดูตาราง)',
      ouk:
        'เมื่อไม่มี{p}คว่ำเหลือ และฝ่ายหนึ่งเหลือ{k}ตัวเดียวขณะที่อีกฝ่ายมีมากกว่า ฝ่ายที่เหลือ{k}ตัวเดียวจะนับศักดิ์หมากแทน เริ่มจากจำนวนหมากทั้งหมดบนกระดาน รวม{k}ทั้งสองตัว แล้วบวกหนึ่ง เกณฑ์ขึ้นอยู่กับหมากของฝ่ายที่ไล่ (ดูตาราง)',
    },
    limitsTitle: 'เกณฑ์การนับ',
    limitsCaption: 'เกณฑ์การนับศักดิ์หมาก ให้ใช้เกณฑ์ที่น้อยที่สุดที่เข้าข่าย',
    limitsMaterial: 'ฝ่ายที่ไล่มี',
    limitsLimit: 'เกณฑ์',
    limits: ['{r}สองลำ', '{r}หนึ่งลำ', '{s}สองตัว', '{n}สองตัว', '{s}หนึ่งตัว', 'อย่างอื่น: {n}ตัวเดียว หรือมีแต่{m} (รวม{p}ที่หงายแล้ว)'],
    rulesTitle: 'การนับดำเนินไปอย่างไร',
    rules: [
      'การนับแสดงเป็น n / L ข้างชื่อของฝ่ายที่นับ n คือจำนวนที่นับได้ L คือเกณฑ์',
      'นับเฉพาะตาเดินของฝ่ายที่นับเท่านั้น การกินหมากไม่ทำให้จำนวนที่นับหรือเกณฑ์เริ่มใหม่',
      'เมื่อฝ่ายที่นับเดินจนนับถึงเกณฑ์ อีกฝ่ายมีโอกาสเดินอีกตาเดียว ถ้ารุกจนได้ก็ชนะ ถ้าไม่ได้ เกมเสมอ',
      'การนับศักดิ์หมากที่จะเริ่มที่เกณฑ์หรือเกินเกณฑ์ เสมอทันที',
      'การนับศักดิ์กระดานหยุดเมื่อฝ่ายที่นับมีหมากมากกว่าอีกฝ่าย (เท่ากันไม่ถือว่ามากกว่า) ถ้าเริ่มนับอัตโนมัติ การนับของอีกฝ่ายจะเริ่มทันทีถ้าเข้าเกณฑ์',
    ],
    switchRule: {
      makruk:
        'ถ้าฝ่ายที่นับศักดิ์กระดานเหลือ{k}ตัวเดียว (และไม่มี{p}คว่ำเหลือ) การนับจะเปลี่ยนเป็นนับศักดิ์หมาก เริ่มใหม่จากจำนวนหมากบนกระดานขณะนั้น และใช้เกณฑ์ของการนับศักดิ์หมาก',
      ouk:
        'ถ้าฝ่ายที่นับศักดิ์กระดานเหลือ{k}ตัวเดียว (และไม่มี{p}คว่ำเหลือ) การนับจะเปลี่ยนเป็นนับศักดิ์หมาก เริ่มใหม่จากจำนวนหมากบนกระดานขณะนั้นบวกหนึ่ง และใช้เกณฑ์ของการนับศักดิ์หมาก',
    },
    after: [
      'เมื่อนับศักดิ์หมากแล้ว จำนวนที่นับและเกณฑ์จะคงเดิม ไม่ว่าจะมีการกินหมากตัวใดภายหลัง',
      'วิธีเริ่มนับเป็นการตั้งค่าของโต๊ะ: “{auto}” หรือ “{declare}” (ดูกติกาของโต๊ะด้านล่าง) ถ้าผู้เล่นประกาศนับเอง แล้วฝ่ายที่นับรุกจนขณะที่ยังนับอยู่ เกมเสมอ ต้องกด “{stopCounting}” ก่อนจึงจะเล่นเพื่อชนะได้',
    ],
    examplesTitle: 'ตัวอย่างการนับสองตัวอย่าง',
    examples: {
      makruk: [
        {
          title: '{r}สองลำกับ{k}ตัวเดียว',
          lines: [
            'ฝ่ายขาวมี{k}และ{r}สองลำ ฝ่ายดำเหลือ{k}ตัวเดียว ไม่มี{p}เหลือ บนกระดานมีหมาก 4 ตัว',
            'ฝ่ายดำนับศักดิ์หมาก เริ่มที่ 4 และเกณฑ์ของ{r}สองลำคือ 8 จึงแสดงเป็น 4 / 8',
            'ตาเดินของฝ่ายดำนับเป็น 5, 6, 7 และ 8 หลังฝ่ายดำเดินตาที่นับถึง 8 ฝ่ายขาวมีโอกาสเดินอีกตาเดียว',
            'ฝ่ายขาวจึงมี 4 ตาเพื่อรุกจน ถ้าฝ่ายขาวมี{r}สองลำ {s}สองตัว {n}สองตัว และ{m} (รวมขุนทั้งสองเป็นหมาก 9 ตัว) การนับจะเริ่มที่ 9 ซึ่งเกินเกณฑ์ 8 จึงเสมอทันที',
          ],
        },
        {
          title: 'นับศักดิ์กระดานที่เปลี่ยนเป็นนับศักดิ์หมาก',
          lines: [
            'ไม่มี{p}เหลือ ฝ่ายขาวมี{k} {r} และ{n} (3 ตัว) ฝ่ายดำมี{k}และ{s} (2 ตัว)',
            'ฝ่ายดำมีหมากน้อยกว่า จึงนับศักดิ์กระดานจาก 0 เกณฑ์ 64 ฝ่ายขาวมี 64 ตาเพื่อรุกจน',
            'สมมติว่าฝ่ายขาวกิน{s}ได้ขณะนับถึง 20 / 64 ฝ่ายดำเหลือ{k}ตัวเดียว การนับจึงเปลี่ยนเป็นนับศักดิ์หมาก บนกระดานมีหมาก 4 ตัว จึงเริ่มใหม่ที่ 4 และเกณฑ์ของ{r}หนึ่งลำคือ 16 เป็น 4 / 16',
            'ตาเดินของฝ่ายดำนับเป็น 5 ไปจนถึง 16 ฝ่ายขาวจึงเหลืออีก 12 ตาเพื่อรุกจน',
          ],
        },
      ],
      ouk: [
        {
          title: '{r}สองลำกับ{k}ตัวเดียว',
          lines: [
            'ฝ่ายขาวมี{k}และ{r}สองลำ ฝ่ายดำเหลือ{k}ตัวเดียว ไม่มี{p}เหลือ บนกระดานมีหมาก 4 ตัว',
            'ฝ่ายดำนับศักดิ์หมาก เริ่มที่ 4 + 1 = 5 และเกณฑ์ของ{r}สองลำคือ 8 จึงแสดงเป็น 5 / 8',
            'ตาเดินของฝ่ายดำนับเป็น 6, 7 และ 8 หลังฝ่ายดำเดินตาที่นับถึง 8 ฝ่ายขาวมีโอกาสเดินอีกตาเดียว',
            'ฝ่ายขาวจึงมี 3 ตาเพื่อรุกจน ถ้าฝ่ายขาวมี{r}สองลำ {s}สองตัว {n}สองตัว และ{m} (รวมขุนทั้งสองเป็นหมาก 9 ตัว) การนับจะเริ่มที่ 9 + 1 = 10 ซึ่งเกินเกณฑ์ 8 จึงเสมอทันที',
          ],
        },
        {
          title: 'นับศักดิ์กระดานที่เปลี่ยนเป็นนับศักดิ์หมาก',
          lines: [
            'ไม่มี{p}เหลือ ฝ่ายขาวมี{k} {r} และ{n} (3 ตัว) ฝ่ายดำมี{k}และ{s} (2 ตัว)',
            'ฝ่ายดำมีหมากสามตัวหรือน้อยกว่า และน้อยกว่าฝ่ายขาว จึงนับศักดิ์กระดานจาก 1 เกณฑ์ 64 ฝ่ายขาวมี 63 ตาเพื่อรุกจน (การนับนี้เริ่มได้แม้ยังมี{p}อยู่บนกระดาน)',
            'สมมติว่าฝ่ายขาวกิน{s}ได้ขณะนับถึง 20 / 64 ฝ่ายดำเหลือ{k}ตัวเดียว การนับจึงเปลี่ยนเป็นนับศักดิ์หมาก บนกระดานมีหมาก 4 ตัว จึงเริ่มใหม่ที่ 4 + 1 = 5 และเกณฑ์ของ{r}หนึ่งลำคือ 16 เป็น 5 / 16',
            'ตาเดินของฝ่ายดำนับเป็น 6 ไปจนถึง 16 ฝ่ายขาวจึงเหลืออีก 11 ตาเพื่อรุกจน',
          ],
        },
      ],
    },
  },
  house: {
    intro: 'ผู้ที่เปิดโต๊ะเลือกการตั้งค่าเหล่านี้ในหน้าสร้างโต๊ะ แต่ละข้อมีผลดังนี้',
    defaultIs: 'ค่าเริ่มต้น: {v}',
    friendsOnly: 'เฉพาะโต๊ะที่เล่นกับเพื่อน',
    countStart:
      '{auto}: การนับเริ่ม เปลี่ยน และหยุดเอง และกดหยุดนับไม่ได้ ฝ่ายที่นับรุกจนได้ก็ชนะ\n{declare}: ไม่มีการนับใดเริ่มเอง ฝ่ายที่มีสิทธิ์นับกด “{startCounting}” และฝ่ายที่กำลังนับกด “{stopCounting}” ได้ ทั้งสองปุ่มไม่เสียตาเดิน และกดได้ทั้งในตาของตนและตาของอีกฝ่าย เมื่อเริ่มนับใหม่จะนับตั้งแต่ต้น ถ้ารุกจนขณะที่การนับของตนยังดำเนินอยู่ เกมเสมอ',
    showLegal: 'เมื่อหยิบหมาก จะมีจุดแสดงช่องที่หมากตัวนั้นเดินไปได้',
    swapColors: 'หลังจบแต่ละเกม ผู้เล่นสลับฝ่ายกัน การเดินก่อน (ของฝ่ายขาว) จึงผลัดกันไป',
    labels: 'หมากแต่ละตัวมีป้ายชื่อสั้นๆ อยู่ใต้รูป เช่น “{n}”',
    tableMode:
      '{live}: ผู้เล่นทั้งสองอยู่ที่กระดานพร้อมกัน\n{turn}: เดินเมื่อไหร่ก็ได้ที่สะดวก เราจะแจ้งเมื่อถึงตาของคุณ โต๊ะแบบผลัดกันเดินที่ไม่มีการเดินนาน 45 วันจะจบเองโดยไม่มีผู้ชนะหรือผู้แพ้',
    pickTime: 'เลือกวันและเวลา เพื่อนเข้าร่วมโต๊ะได้ทันที และเริ่มเกมได้ตั้งแต่เวลานั้นเป็นต้นไป เพิ่มนัดลงปฏิทินได้ด้วย',
  },
  faq: {
    makruk: [
      { q: 'เล่นได้กี่คน', a: 'สองคน หรือจะเล่นกับคอมพิวเตอร์ก็ได้ (แปดระดับ) และใครที่มีลิงก์ก็เข้ามาชมได้' },
      { q: 'เกมหนึ่งใช้เวลานานเท่าไร', a: 'ประมาณ 20 นาที ไม่มีนาฬิกาจับเวลา เกมแบบผลัดกันเดินเล่นต่อเนื่องได้หลายวัน' },
      { q: 'ต้องมีบัญชีไหม', a: 'ไม่ต้อง เปิดโต๊ะ ส่งลิงก์หรือรหัส 6 ตัวให้เพื่อน แล้วเล่นได้เลย เพื่อนก็ไม่ต้องสมัครเช่นกัน' },
      { q: 'เล่นบนโทรศัพท์ได้ไหม', a: 'ได้ ไม่ต้องติดตั้งแอป เปิดหน้านี้ในเบราว์เซอร์ของโทรศัพท์ได้เลย ผู้เล่นบนโทรศัพท์และคอมพิวเตอร์เล่นโต๊ะเดียวกันได้' },
      {
        q: 'เล่นโดยไม่ต้องออนไลน์พร้อมกันได้ไหม',
        a: 'ได้ เลือก “{turn}” ตอนเปิดโต๊ะ เดินเมื่อไหร่ก็ได้ เราจะแจ้งเมื่อถึงตาของคุณ โต๊ะที่ไม่มีการเดินนาน 45 วันจะจบเองโดยไม่มีผู้ชนะหรือผู้แพ้',
      },
      {
        q: 'ตัวเลขนับข้างชื่อผู้เล่นหมายถึงอะไร',
        a: 'คือการนับช่วงท้ายเกม แสดงเป็น n / L คือจำนวนที่นับได้และเกณฑ์ ฝ่ายที่ถูกไล่นับตาเดินของตน ถ้านับถึงเกณฑ์แล้วตาสุดท้ายของอีกฝ่ายไม่ใช่การรุกจน เกมเสมอ ดูหัวข้อ “การนับ” ด้านบน',
      },
    ],
    ouk: [
      { q: 'เล่นได้กี่คน', a: 'สองคน หรือจะเล่นกับคอมพิวเตอร์ก็ได้ (แปดระดับ) และใครที่มีลิงก์ก็เข้ามาชมได้' },
      { q: 'เกมหนึ่งใช้เวลานานเท่าไร', a: 'ประมาณ 20 นาที ไม่มีนาฬิกาจับเวลา เกมแบบผลัดกันเดินเล่นต่อเนื่องได้หลายวัน' },
      { q: 'ต้องมีบัญชีไหม', a: 'ไม่ต้อง เปิดโต๊ะ ส่งลิงก์หรือรหัส 6 ตัวให้เพื่อน แล้วเล่นได้เลย เพื่อนก็ไม่ต้องสมัครเช่นกัน' },
      { q: 'เล่นบนโทรศัพท์ได้ไหม', a: 'ได้ ไม่ต้องติดตั้งแอป เปิดหน้านี้ในเบราว์เซอร์ของโทรศัพท์ได้เลย ผู้เล่นบนโทรศัพท์และคอมพิวเตอร์เล่นโต๊ะเดียวกันได้' },
      {
        q: 'เล่นโดยไม่ต้องออนไลน์พร้อมกันได้ไหม',
        a: 'ได้ เลือก “{turn}” ตอนเปิดโต๊ะ เดินเมื่อไหร่ก็ได้ เราจะแจ้งเมื่อถึงตาของคุณ โต๊ะที่ไม่มีการเดินนาน 45 วันจะจบเองโดยไม่มีผู้ชนะหรือผู้แพ้',
      },
      {
        q: 'ตัวเลขนับข้างชื่อผู้เล่นหมายถึงอะไร',
        a: 'คือการนับช่วงท้ายเกม แสดงเป็น n / L คือจำนวนที่นับได้และเกณฑ์ ฝ่ายที่ถูกไล่นับตาเดินของตน ถ้านับถึงเกณฑ์แล้วตาสุดท้ายของอีกฝ่ายไม่ใช่การรุกจน เกมเสมอ ดูหัวข้อ “การนับ” ด้านบน',
      },
      {
        q: 'ต่างจากหมากรุกไทยอย่างไร',
        a: '{k}และ{m}มีตาเดินพิเศษในตาแรก การนับศักดิ์กระดานเริ่มทันทีที่ฝ่ายหนึ่งเหลือหมากสามตัวหรือน้อยกว่า แม้ยังมี{p}อยู่บนกระดาน การนับเริ่มจากเลขที่สูงกว่าหมากรุกไทยหนึ่ง ตำแหน่งซ้ำจะเสมอเมื่อผู้เล่นอ้างสิทธิ์เสมอเท่านั้น และเกมที่ไม่มีฝ่ายใดรุกจนได้จะเสมอทันที',
      },
    ],
  },
  readyTitle: 'พร้อมเล่นแล้วหรือยัง',
  sep: ' ',
};

// ------------------------------------------------------------------ Khmer

const km: LearnText = {
  title: { makruk: 'រៀនលេងម៉ាករុក', ouk: 'រៀនលេងអុកចត្រង្គ' },
  intro: {
    makruk:
      'ម៉ាករុកគឺជាអុករបស់ថៃ។ ទំព័រនេះមានអ្វីៗទាំងអស់ដែលអ្នកត្រូវដឹងមុនពេលលេង៖ ច្បាប់សង្ខេប របៀបដើររបស់កូនអុកនីមួយៗ ការរាប់ ការកំណត់តុ និងមេរៀនខ្លីៗសម្រាប់កូនអុកនីមួយៗ។',
    ouk:
      'អុកចត្រង្គគឺជាអុករបស់កម្ពុជា ដែលជាញាតិជិតស្និទ្ធនឹងម៉ាករុក។ ទំព័រនេះមានអ្វីៗទាំងអស់ដែលអ្នកត្រូវដឹងមុនពេលលេង៖ ច្បាប់សង្ខេប របៀបដើររបស់កូនអុកនីមួយៗ ការដើរពិសេសលើកដំបូង ការរាប់ ការកំណត់តុ និងមេរៀនខ្លីៗសម្រាប់កូនអុកនីមួយៗ។',
  },
  otherGame: 'ល្បែងមួយទៀត៖',
  contents: 'នៅក្នុងទំព័រនេះ',
  sec: {
    quick: 'ច្បាប់ក្នុងរយៈពេល ៣០ វិនាទី',
    pieces: 'កូនអុក',
    leaps: 'ការដើរពិសេសលើកដំបូង',
    lesson: 'សាកដើរកូនអុកនីមួយៗ',
    ending: 'ល្បែងបញ្ចប់ដោយរបៀបណា',
    count: 'ការរាប់',
    faq: 'សំណួរ និងចម្លើយ',
  },
  quick: {
    makruk: [
      ['ការរៀបចំ', 'ក្តារ ៨×៨ ក្រឡា ម្ខាងៗមានកូនអុក ១៦។ {p}នៅជួរទីបីរបស់ខាងនីមួយៗ។ ខាងសដើរមុន។'],
      ['វេន', 'ដើរកូនអុកមួយ រួចគូប្រកួតដើរ។ ដើរចូលក្រឡាដែលមានកូនអុករបស់គូប្រកួត គឺស៊ីកូនអុកនោះ។'],
      ['កូនអុក', 'មានតែ{r}ទេដែលដើរបានឆ្ងាយ។ {k} {m} {s} និង{p}ដើរម្តងមួយក្រឡា ចំណែក{n}លោត។'],
      ['ការឈ្នះ', 'អុកស្លាប់{k}របស់គូប្រកួត៖ វាត្រូវអុក ហើយគ្មានផ្លូវគេច។'],
      ['ចុងល្បែង', 'ពេលគ្មាន{p}ដែលមិនទាន់ក្លាយនៅលើក្តារ ខាងដែលមានកូនអុកតិចជាងរាប់ការដើររបស់ខ្លួន។ បើរាប់ដល់កំណត់ ដោយមិនត្រូវអុកស្លាប់ ល្បែងស្មើ។'],
    ],
    ouk: [
      ['ការរៀបចំ', 'ក្តារ ៨×៨ ក្រឡា ម្ខាងៗមានកូនអុក ១៦។ {p}នៅជួរទីបីរបស់ខាងនីមួយៗ។ ខាងសដើរមុន។'],
      ['វេន', 'ដើរកូនអុកមួយ រួចគូប្រកួតដើរ។ ដើរចូលក្រឡាដែលមានកូនអុករបស់គូប្រកួត គឺស៊ីកូនអុកនោះ។'],
      ['ការដើរលើកដំបូង', 'ក្នុងការដើរលើកដំបូងរបស់វា {k}អាចលោតដូចសេះទៅចំហៀង ហើយ{m}អាចលោតពីរក្រឡាទៅមុខ។'],
      ['ការឈ្នះ', 'អុកស្លាប់{k}របស់គូប្រកួត៖ វាត្រូវអុក ហើយគ្មានផ្លូវគេច។'],
      ['ចុងល្បែង', 'ភ្លាមៗពេលខាងណាមួយនៅសល់កូនអុកបី ឬតិចជាងនេះ ហើយតិចជាងគូប្រកួត ខាងនោះរាប់ការដើររបស់ខ្លួន។ បើរាប់ដល់កំណត់ ដោយមិនត្រូវអុកស្លាប់ ល្បែងស្មើ។'],
    ],
  },
  setupTitle: 'ទីតាំងចាប់ផ្តើម',
  setupCaption:
    '{k}ខាងសនៅ [d1] និង{m}ខាងសនៅ [e1] ហើយ{m}ខាងខ្មៅនៅ [d8] និង{k}ខាងខ្មៅនៅ [e8] ដូច្នេះ{k}ទាំងពីរមិននៅជួរឈរតែមួយទេ។ ជួរទី ២ និងជួរទី ៧ ទំនេរតាំងពីដំបូង។',
  piecesIntro: 'រូបនីមួយៗបង្ហាញកូនអុកមួយនៅលើក្តារស្ទើរតែទំនេរ ហើយមានសញ្ញានៅក្រឡាដែលវាអាចទៅដល់។',
  legendTitle: 'សញ្ញានៅលើរូប',
  legend: {
    move: 'ក្រឡាដែលវាអាចដើរទៅបាន',
    capture: 'កូនអុករបស់គូប្រកួតដែលវាអាចស៊ីបាន',
    leap: 'ការលោតលើកដំបូង',
    band: 'ជួរដែល{p}ក្លាយ',
  },
  alias: {},
  piece: {
    k: '{k}ដើរមួយក្រឡា ទៅគ្រប់ទិសទាំងប្រាំបី។ វាមិនអាចដើរចូលក្រឡាដែលគូប្រកួតគ្រប់គ្រងបានទេ។ គ្មានការប្តូរស្តេចទេ។',
    m: '{m}ដើរមួយក្រឡាទ្រេត ទៅមុខ ឬថយក្រោយ។ វាមិនដូចនាងក្នុងអុកអន្តរជាតិទេ៖ វាដើរបានតែមួយក្រឡាប៉ុណ្ណោះ។',
    s: '{s}ដើរមួយក្រឡាទ្រេតគ្រប់ទិស ឬមួយក្រឡាត្រង់ទៅមុខ៖ សរុបប្រាំក្រឡា។ វាមិនអាចដើរទៅចំហៀង ឬថយក្រោយត្រង់បានទេ។',
    n: '{n}ដើរដូចសេះក្នុងអុកអន្តរជាតិ៖ ពីរក្រឡាទៅទិសមួយ រួចមួយក្រឡាទៅចំហៀង។ វាលោតរំលងកូនអុកដែលនៅចន្លោះបាន។',
    r: '{r}ដើរត្រង់តាមជួរដេក ឬជួរឈរ ឆ្ងាយប៉ុន្មានក៏បាន ឱ្យតែផ្លូវទំនេរ។ វាជាកូនអុកតែមួយគត់ដែលដើរបានឆ្ងាយ ហើយខ្លាំងជាងគេ។',
    p: '{p}ដើរមួយក្រឡាត្រង់ទៅមុខ ទៅក្រឡាទំនេរ ហើយស៊ីមួយក្រឡាទ្រេតទៅមុខ។ គ្មានការដើរពីរក្រឡា និងគ្មានការស៊ីឆ្លងកាត់ទេ។',
    pm: '{p}ដែលដើរដល់ជួរទីប្រាំមួយរបស់ខ្លួន ក្លាយជា{pm}ភ្លាម ហើយដើរដូច{m}៖ មួយក្រឡាទ្រេត។',
  },
  rueaCaption: 'វាឈប់នៅមុខកូនអុកខាងខ្លួន ហើយអាចស៊ីកូនអុកគូប្រកួតដំបូងដែលរាំងផ្លូវ។',
  pawnCaption: 'វាដើរត្រង់ទៅមុខ តែស៊ីទ្រេត។',
  promoTitle: 'ការក្លាយ',
  promoCaption:
    '{p}ខាងសក្លាយនៅជួរទី ៦ ហើយ{p}ខាងខ្មៅក្លាយនៅជួរទី ៣ (ជួរដែល{p}របស់គូប្រកួតនៅពេលចាប់ផ្តើម)។ វាកើតឡើងភ្លាម ទោះដើរ ឬស៊ីក៏ដោយ ហើយគ្មានអ្វីត្រូវជ្រើសទេ។',
  alt: {
    on: '{piece}នៅ {sq}។',
    moves: 'វាអាចដើរទៅ {list}។',
    captures: 'វាអាចស៊ីនៅ {list}។',
    leaps: 'ក្នុងការដើរលើកដំបូង វាអាចលោតទៅ {list}។',
    band: 'ជួរទី {rank} គឺជាជួរដែលត្រីក្លាយ។',
    side: 'ខាង{color}៖ {list}។',
  },
  leaps: {
    intro: 'ក្នុងអុកចត្រង្គ កូនអុកពីរមានការដើរពិសេសលើកដំបូង។ ការលោតទាំងពីរមិនអាចស៊ីបានទេ ហើយមិនបង្ខំឱ្យប្រើទេ។',
    kingTitle: 'ការលោតរបស់{k}',
    king:
      'ក្នុងការដើរលើកដំបូងរបស់{k} បើវាមិនកំពុងត្រូវអុក {k}អាចលោតដូចសេះ ទៅជួរដេកបន្ទាប់ខាងមុខ ឃ្លាតពីរក្រឡាទៅចំហៀង៖ ខាងសពី [d1] ទៅ [b2] ឬ [f2] ខាងខ្មៅពី [e8] ទៅ [c7] ឬ [g7]។ ក្រឡានោះត្រូវតែទំនេរ ហើយ{k}មិនអាចលោតចូលកន្លែងដែលត្រូវអុកបានទេ។',
    kingLose:
      '{k}បាត់សិទ្ធិនេះ ពេលវាបានដើររួច ឬពេល{r}របស់គូប្រកួតដើរមកឈប់នៅជួរដេក ឬជួរឈរតែមួយជាមួយ{k} ទោះបីមានកូនអុកនៅចន្លោះក៏ដោយ។ បើ{r}មកតម្រង់ដោយមិនបានដើរ (ព្រោះកូនអុកផ្សេងចេញពីផ្លូវ) សិទ្ធិនៅតែមាន។',
    kingCaption: '{k}ខាងសនៅ [d1] ពេលចាប់ផ្តើម៖ ដើរមួយក្រឡាទៅ [c2] [d2] [e2] និងលោតលើកដំបូងទៅ [b2] ឬ [f2]។',
    neangTitle: 'ការលោតរបស់{m}',
    neang:
      'ក្នុងការដើរលើកដំបូងរបស់{m} {m}អាចលោតពីរក្រឡាត្រង់ទៅមុខ ទៅក្រឡាទំនេរ រំលងកូនអុកដែលនៅចន្លោះ ឧទាហរណ៍ពី [e1] ទៅ [e3] ក្រោយពេល{p}នៅ [e3] បានដើរចេញ។ ការលោតនេះមិនអាចស៊ីបានទេ តែអាចប្រើដើម្បីបាំងការអុកបាន។ សិទ្ធិនេះបាត់ ពេល{m}បានដើររួច ឬត្រូវគេស៊ី។',
    neangCaption: '{m}ខាងសនៅ [e1] ក្រោយពេល{p}នៅ [e3] បានដើរទៅមុខ៖ ដើរទ្រេតទៅ [d2] [f2] និងលោតលើកដំបូងទៅ [e3]។',
  },
  lesson: {
    intro: 'ជ្រើសកូនអុក រួចចុចក្រឡាដែលមានសញ្ញា ដើម្បីដើរកូនអុកទៅទីនោះ។ ក្រោយការដើរនីមួយៗ កូនអុកត្រឡប់ទៅកន្លែងដើមវិញ។ មេរៀនចប់ ពេលបានទៅដល់គ្រប់ក្រឡាដែលមានសញ្ញា។',
    pick: 'ជ្រើសកូនអុក',
    goal: 'ដើរ{piece}ទៅគ្រប់ក្រឡាដែលមានសញ្ញា។',
    pawnGoal: 'ដើរ{p}ទៅមុខម្តងមួយក្រឡា រហូតដល់ជួរទី ៦។',
    progress: 'បាន {n} ក្នុងចំណោម {total} ក្រឡា',
    done: 'ពូកែណាស់! {piece}បានទៅដល់គ្រប់ក្រឡាដែលមានសញ្ញាហើយ។',
    pawnDone: 'ពូកែណាស់! {p}បានដល់ជួរទី ៦ ហើយក្លាយជា{pm}។',
    again: 'សាកម្តងទៀត',
    squareGoal: '{sq}៖ ដើរ{piece}មកទីនេះ',
    squareVisited: '{sq}៖ បានមកដល់ហើយ',
    boardLabel: 'ក្តារហាត់៖ {piece}នៅ {sq}',
  },
  ending: {
    makruk: [
      'អុកស្លាប់៖ ខាងដែល{k}ត្រូវអុក ហើយគ្មានការដើរត្រឹមត្រូវ គឺចាញ់។',
      'ចុះចាញ់៖ អ្នកលេងណាក៏អាចចុះចាញ់បានគ្រប់ពេល។',
      'ព្រមព្រៀងស្មើ៖ អ្នកលេងម្នាក់ស្នើស្មើ («{offerDraw}») ហើយម្នាក់ទៀតទទួលយក («{drawAccept}»)។ សំណើនៅតែមាន រហូតដល់គូប្រកួតឆ្លើយ ឬដើរកូនអុក។',
      'អាប់៖ ខាងដែលគ្មានការដើរ តែមិនត្រូវអុក៖ ល្បែងស្មើ។',
      'នៅសល់តែ{k}ពីរ៖ ស្មើភ្លាម។',
      'ទីតាំងដដែល (កូនអុកដដែលនៅក្រឡាដដែល ហើយដល់វេនខាងដដែល) កើតឡើងជាលើកទីបី៖ ស្មើភ្លាម។',
      'ការរាប់ដល់កំណត់៖ ស្មើ (មើលផ្នែកការរាប់ខាងក្រោម)។',
      'តុលេងតាមវេនដែលគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ បញ្ចប់ដោយគ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។',
      'គ្មានច្បាប់ ៥០ ការដើរទេ។',
    ],
    ouk: [
      'អុកស្លាប់៖ ខាងដែល{k}ត្រូវអុក ហើយគ្មានការដើរត្រឹមត្រូវ គឺចាញ់។',
      'ចុះចាញ់៖ អ្នកលេងណាក៏អាចចុះចាញ់បានគ្រប់ពេល។',
      'ព្រមព្រៀងស្មើ៖ អ្នកលេងម្នាក់ស្នើស្មើ («{offerDraw}») ហើយម្នាក់ទៀតទទួលយក («{drawAccept}»)។ សំណើនៅតែមាន រហូតដល់គូប្រកួតឆ្លើយ ឬដើរកូនអុក។',
      'អាប់៖ ខាងដែលគ្មានការដើរ តែមិនត្រូវអុក៖ ល្បែងស្មើ។',
      'នៅសល់តែ{k}ពីរ៖ ស្មើភ្លាម។',
      'ទីតាំងដដែលកើតឡើងជាលើកទីបី ឬច្រើនជាងនេះ៖ អ្នកលេងណាក៏អាចចុចប៊ូតុង «{claim}» បាន។ ទីតាំងនេះរាប់បញ្ចូលទាំងសិទ្ធិលោតលើកដំបូងដែលនៅសល់ផងដែរ។',
      'គ្មានខាងណាអាចអុកស្លាប់បានទៀតទេ៖ ស្មើភ្លាម។ ខាងមួយនៅអាចអុកស្លាប់បាន បើមាន{r} ឬ{s} ឬមាន{p} ឬ{n} ខណៈដែលមានកូនអុកផ្សេងក្រៅពី{k}ទាំងពីរនៅលើក្តារ ឬមាន{m} (រួមទាំង{p}ដែលក្លាយហើយ) នៅលើក្រឡាទាំងពីរពណ៌ បើរាប់ក្រឡាដូចក្តារឆ្លាស់ពណ៌។',
      'ការរាប់ដល់កំណត់៖ ស្មើ (មើលផ្នែកការរាប់ខាងក្រោម)។',
      'តុលេងតាមវេនដែលគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ បញ្ចប់ដោយគ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។',
      'គ្មានច្បាប់ ៥០ ការដើរទេ។',
    ],
  },
  count: {
    intro:
      'កូនអុកភាគច្រើនដើរម្តងមួយក្រឡា។ ពេល{p}អស់ពីក្តារ ខាងដែលខ្លាំងជាងច្រើនតែមិនអាចបង្ខំអុកស្លាប់បាន ហើយល្បែងអាចគ្មានទីបញ្ចប់។ ការរាប់ដាក់កំណត់៖ ខាងដែលត្រូវគេដេញរាប់ការដើររបស់ខ្លួន បើរាប់ដល់កំណត់ ដោយមិនត្រូវអុកស្លាប់ ល្បែងស្មើ។',
    boardTitle: 'រាប់ក្តារ',
    board: {
      makruk:
        'ពេលគ្មាន{p}ដែលមិនទាន់ក្លាយនៅលើក្តារ ({pm}អាចនៅបាន) ហើយខាងទាំងពីរមានចំនួនកូនអុកមិនស្មើគ្នា ខាងដែលមានកូនអុកតិចជាងរាប់។ ការរាប់ចាប់ផ្តើមពី ០ ដូច្នេះការដើរដំបូងដែលរាប់គឺ ១ ហើយកំណត់គឺ ៦៤។ ចំនួនកូនអុករាប់បញ្ចូលទាំង{k}។',
      ouk:
        'ភ្លាមៗពេលខាងណាមួយមានកូនអុកបី ឬតិចជាងនេះ (រួមទាំង{k}) ហើយតិចជាងគូប្រកួត ខាងនោះរាប់ ទោះបីនៅមាន{p}លើក្តារក៏ដោយ។ ការរាប់ចាប់ផ្តើមពី ១ ដូច្នេះការដើរដំបូងដែលរាប់ធ្វើឱ្យវាទៅ ២ ហើយកំណត់គឺ ៦៤។',
    },
    pieceTitle: 'រាប់កូនអុក ({k}តែឯង)',
    piece: {
      makruk:
        'ពេលគ្មាន{p}ដែលមិនទាន់ក្លាយ ហើយខាងមួយនៅសល់តែ{k} ខណៈខាងម្ខាងទៀតមានច្រើនជាង ខាងដែលនៅសល់{k}តែឯងរាប់កូនអុកជំនួសវិញ។ ការរាប់ចាប់ផ្តើមពីចំនួនកូនអុកទាំងអស់នៅលើក្តារ រួមទាំង{k}ទាំងពីរ។ កំណត់អាស្រ័យលើកូនអុករបស់ខាងដេញ (មើលតារាង)។',
      ouk:
        'ពេលគ្មាន{p}ដែលមិនទាន់ក្លាយ ហើយខាងមួយនៅសល់តែ{k} ខណៈខាងម្ខាងទៀតមានច្រើនជាង ខាងដែលនៅសល់{k}តែឯងរាប់កូនអុកជំនួសវិញ។ ការរាប់ចាប់ផ្តើមពីចំនួនកូនអុកទាំងអស់នៅលើក្តារ រួមទាំង{k}ទាំងពីរ បូកមួយ។ កំណត់អាស្រ័យលើកូនអុករបស់ខាងដេញ (មើលតារាង)។',
    },
    limitsTitle: 'កំណត់',
    limitsCaption: 'កំណត់នៃការរាប់កូនអុក។ ប្រើកំណត់តូចបំផុតដែលត្រូវនឹងករណី។',
    limitsMaterial: 'ខាងដេញមាន',
    limitsLimit: 'កំណត់',
    limits: ['{r}ពីរ', '{r}មួយ', '{s}ពីរ', '{n}ពីរ', '{s}មួយ', 'ផ្សេងទៀត៖ {n}មួយ ឬមានតែ{m} (រួមទាំង{p}ដែលក្លាយហើយ)'],
    rulesTitle: 'ការរាប់ដំណើរការយ៉ាងដូចម្តេច',
    rules: [
      'ការរាប់បង្ហាញជា n / L នៅក្បែរឈ្មោះខាងដែលរាប់៖ n ជាចំនួនដែលបានរាប់ L ជាកំណត់។',
      'មានតែការដើររបស់ខាងដែលរាប់ប៉ុណ្ណោះ ដែលបូកមួយ។ ការស៊ីមិនធ្វើឱ្យចំនួនរាប់ ឬកំណត់ចាប់ផ្តើមឡើងវិញទេ។',
      'ពេលការដើររបស់ខាងដែលរាប់ធ្វើឱ្យការរាប់ដល់កំណត់ គូប្រកួតមានការដើរចុងក្រោយមួយទៀត៖ បើអុកស្លាប់ គឺឈ្នះ បើមិនដូច្នោះទេ ល្បែងស្មើ។',
      'ការរាប់កូនអុកដែលនឹងចាប់ផ្តើមនៅត្រឹមកំណត់ ឬលើសកំណត់ គឺស្មើភ្លាម។',
      'ការរាប់ក្តារឈប់ ពេលខាងដែលរាប់មានកូនអុកច្រើនជាងគូប្រកួត (ស្មើគ្នាមិនមែនច្រើនជាងទេ)។ ពេលរាប់ស្វ័យប្រវត្តិ ការរាប់របស់ខាងម្ខាងទៀតចាប់ផ្តើមភ្លាម បើវាត្រូវលក្ខខណ្ឌ។',
    ],
    switchRule: {
      makruk:
        'ពេលខាងដែលកំពុងរាប់ក្តារនៅសល់តែ{k} (ហើយគ្មាន{p}ដែលមិនទាន់ក្លាយ) ការរាប់ប្តូរទៅជាការរាប់កូនអុក ចាប់ផ្តើមឡើងវិញពីចំនួនកូនអុកនៅលើក្តារនៅពេលនោះ ជាមួយកំណត់របស់វា។',
      ouk:
        'ពេលខាងដែលកំពុងរាប់ក្តារនៅសល់តែ{k} (ហើយគ្មាន{p}ដែលមិនទាន់ក្លាយ) ការរាប់ប្តូរទៅជាការរាប់កូនអុក ចាប់ផ្តើមឡើងវិញពីចំនួនកូនអុកនៅលើក្តារនៅពេលនោះ បូកមួយ ជាមួយកំណត់របស់វា។',
    },
    after: [
      'ពេលការរាប់កូនអុកចាប់ផ្តើមហើយ វារក្សាចំនួនរាប់ និងកំណត់ដដែល ទោះមានការស៊ីអ្វីក្រោយមកក៏ដោយ។',
      'របៀបចាប់ផ្តើមរាប់ជាការកំណត់របស់តុ៖ «{auto}» ឬ «{declare}» (មើលច្បាប់របស់តុខាងក្រោម)។ ពេលអ្នកលេងប្រកាសខ្លួនឯង បើខាងដែលរាប់អុកស្លាប់ ខណៈការរាប់របស់ខ្លួននៅដំណើរការ ល្បែងស្មើ៖ ចុច «{stopCounting}» ជាមុនសិន ដើម្បីលេងឱ្យឈ្នះ។',
    ],
    examplesTitle: 'ឧទាហរណ៍ពីរ',
    examples: {
      makruk: [
        {
          title: '{r}ពីរ ទល់នឹង{k}តែឯង',
          lines: [
            'ខាងសមាន{k} និង{r}ពីរ ខាងខ្មៅនៅសល់តែ{k}។ គ្មាន{p}នៅសល់ទេ។ នៅលើក្តារមានកូនអុក ៤។',
            'ខាងខ្មៅរាប់កូនអុក។ ការរាប់ចាប់ផ្តើមពី ៤ ហើយកំណត់សម្រាប់{r}ពីរគឺ ៨៖ វាបង្ហាញ ៤ / ៨។',
            'ការដើររបស់ខាងខ្មៅធ្វើឱ្យវាទៅ ៥ ៦ ៧ និង ៨។ ក្រោយការដើររបស់ខាងខ្មៅដែលធ្វើឱ្យវាដល់ ៨ ខាងសមានការដើរចុងក្រោយមួយទៀត។',
            'ដូច្នេះខាងសមានការដើរ ៤ ដើម្បីអុកស្លាប់។ បើខាងសនៅមាន{r}ពីរ {s}ពីរ {n}ពីរ និង{m} (កូនអុក ៩ រួមទាំង{k}ទាំងពីរ) ការរាប់នឹងចាប់ផ្តើមពី ៩ ដែលលើសកំណត់ ៨៖ ស្មើភ្លាម។',
          ],
        },
        {
          title: 'ការរាប់ក្តារដែលប្តូរទៅជាការរាប់កូនអុក',
          lines: [
            'គ្មាន{p}នៅសល់ទេ។ ខាងសមាន{k} {r} និង{n} (កូនអុក ៣) ខាងខ្មៅមាន{k} និង{s} (កូនអុក ២)។',
            'ខាងខ្មៅមានកូនអុកតិចជាង ដូច្នេះខាងខ្មៅរាប់ក្តារពី ០ កំណត់ ៦៤៖ ខាងសមានការដើរ ៦៤ ដើម្បីអុកស្លាប់។',
            'ឧបមាថាខាងសស៊ី{s} ពេលការរាប់បង្ហាញ ២០ / ៦៤។ ខាងខ្មៅនៅសល់តែ{k} ដូច្នេះការរាប់ក្តារប្តូរទៅជាការរាប់កូនអុក។ នៅលើក្តារមានកូនអុក ៤ ដូច្នេះវាចាប់ផ្តើមឡើងវិញពី ៤ ហើយជាមួយ{r}មួយ កំណត់គឺ ១៦៖ ៤ / ១៦។',
            'ការដើររបស់ខាងខ្មៅធ្វើឱ្យវាទៅពី ៥ ដល់ ១៦ ដូច្នេះខាងសនៅមានការដើរ ១២ ទៀត ដើម្បីអុកស្លាប់។',
          ],
        },
      ],
      ouk: [
        {
          title: '{r}ពីរ ទល់នឹង{k}តែឯង',
          lines: [
            'ខាងសមាន{k} និង{r}ពីរ ខាងខ្មៅនៅសល់តែ{k}។ គ្មាន{p}នៅសល់ទេ។ នៅលើក្តារមានកូនអុក ៤។',
            'ខាងខ្មៅរាប់កូនអុក។ ការរាប់ចាប់ផ្តើមពី ៤ + ១ = ៥ ហើយកំណត់សម្រាប់{r}ពីរគឺ ៨៖ វាបង្ហាញ ៥ / ៨។',
            'ការដើររបស់ខាងខ្មៅធ្វើឱ្យវាទៅ ៦ ៧ និង ៨។ ក្រោយការដើររបស់ខាងខ្មៅដែលធ្វើឱ្យវាដល់ ៨ ខាងសមានការដើរចុងក្រោយមួយទៀត។',
            'ដូច្នេះខាងសមានការដើរ ៣ ដើម្បីអុកស្លាប់។ បើខាងសនៅមាន{r}ពីរ {s}ពីរ {n}ពីរ និង{m} (កូនអុក ៩ រួមទាំង{k}ទាំងពីរ) ការរាប់នឹងចាប់ផ្តើមពី ៩ + ១ = ១០ ដែលលើសកំណត់ ៨៖ ស្មើភ្លាម។',
          ],
        },
        {
          title: 'ការរាប់ក្តារដែលប្តូរទៅជាការរាប់កូនអុក',
          lines: [
            'គ្មាន{p}នៅសល់ទេ។ ខាងសមាន{k} {r} និង{n} (កូនអុក ៣) ខាងខ្មៅមាន{k} និង{s} (កូនអុក ២)។',
            'ខាងខ្មៅមានកូនអុកបី ឬតិចជាងនេះ ហើយតិចជាងខាងស ដូច្នេះខាងខ្មៅរាប់ក្តារពី ១ កំណត់ ៦៤៖ ខាងសមានការដើរ ៦៣ ដើម្បីអុកស្លាប់ (ការរាប់នេះចាប់ផ្តើម ទោះបីនៅមាន{p}លើក្តារក៏ដោយ)។',
            'ឧបមាថាខាងសស៊ី{s} ពេលការរាប់បង្ហាញ ២០ / ៦៤។ ខាងខ្មៅនៅសល់តែ{k} ដូច្នេះការរាប់ក្តារប្តូរទៅជាការរាប់កូនអុក។ នៅលើក្តារមានកូនអុក ៤ ដូច្នេះវាចាប់ផ្តើមឡើងវិញពី ៤ + ១ = ៥ ហើយជាមួយ{r}មួយ កំណត់គឺ ១៦៖ ៥ / ១៦។',
            'ការដើររបស់ខាងខ្មៅធ្វើឱ្យវាទៅពី ៦ ដល់ ១៦ ដូច្នេះខាងសនៅមានការដើរ ១១ ទៀត ដើម្បីអុកស្លាប់។',
          ],
        },
      ],
    },
  },
  house: {
    intro: 'អ្នកដែលបើកតុជ្រើសការកំណត់ទាំងនេះ នៅទំព័របង្កើតតុ។ នេះជាអ្វីដែលការកំណត់នីមួយៗធ្វើ។',
    defaultIs: 'លំនាំដើម៖ {v}',
    friendsOnly: 'សម្រាប់តុលេងជាមួយមិត្តភក្តិប៉ុណ្ណោះ។',
    countStart:
      '{auto}៖ ការរាប់ចាប់ផ្តើម ប្តូរ និងឈប់ដោយខ្លួនឯង ហើយមិនអាចបញ្ឈប់បានទេ។ ខាងដែលរាប់អុកស្លាប់ គឺឈ្នះ។\n{declare}៖ គ្មានការរាប់ណាចាប់ផ្តើមដោយខ្លួនឯងទេ។ ខាងដែលមានសិទ្ធិរាប់ចុច «{startCounting}» ហើយខាងដែលកំពុងរាប់អាចចុច «{stopCounting}»។ ប៊ូតុងទាំងពីរមិនប្រើវេនទេ ហើយអាចចុចបានទាំងក្នុងវេនខ្លួន និងវេនគូប្រកួត។ ការចាប់ផ្តើមម្តងទៀតគឺរាប់ពីដើម។ ការអុកស្លាប់ ខណៈការរាប់របស់ខ្លួននៅដំណើរការ គឺស្មើ។',
    showLegal: 'ពេលអ្នកលើកកូនអុក ចំណុចបង្ហាញក្រឡាដែលវាអាចដើរទៅបាន។',
    swapColors: 'អ្នកលេងប្តូរខាងគ្នាក្រោយល្បែងនីមួយៗ ដូច្នេះការដើរមុន (របស់ខាងស) ឆ្លាស់គ្នាទៅវិញទៅមក។',
    labels: 'កូនអុកនីមួយៗមានស្លាកឈ្មោះខ្លីនៅក្រោមរូប ឧទាហរណ៍ «{n}»។',
    tableMode:
      '{live}៖ អ្នកលេងទាំងពីរនៅមុខក្តារក្នុងពេលតែមួយ។\n{turn}៖ ដើរពេលណាក៏បានតាមចិត្ត ហើយយើងនឹងប្រាប់អ្នកពេលដល់វេនរបស់អ្នក។ តុលេងតាមវេនដែលគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ បញ្ចប់ដោយខ្លួនឯង ដោយគ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។',
    pickTime: 'ជ្រើសថ្ងៃ និងម៉ោង។ មិត្តភក្តិអាចចូលរួមបានភ្លាម ហើយល្បែងអាចចាប់ផ្តើមបានចាប់ពីម៉ោងនោះតទៅ។ អ្នកអាចបន្ថែមវាទៅប្រតិទិនបានផងដែរ។',
  },
  faq: {
    makruk: [
      { q: 'លេងបានប៉ុន្មាននាក់?', a: 'ពីរនាក់។ អ្នកក៏អាចលេងជាមួយកុំព្យូទ័របានដែរ (ប្រាំបីកម្រិត) ហើយអ្នកណាដែលមានតំណអាចចូលមើលបាន។' },
      { q: 'ល្បែងមួយប្រើពេលប៉ុន្មាន?', a: 'ប្រហែល ២០ នាទី។ គ្មាននាឡិកាកំណត់ម៉ោងទេ។ ល្បែងលេងតាមវេនអាចបន្តច្រើនថ្ងៃ។' },
      { q: 'តើត្រូវការគណនីទេ?', a: 'មិនត្រូវការទេ។ បើកតុ ផ្ញើតំណ ឬលេខកូដ ៦ តួ ហើយលេងបានភ្លាម។ មិត្តភក្តិរបស់អ្នកក៏មិនចាំបាច់មានគណនីដែរ។' },
      { q: 'អាចលេងលើទូរស័ព្ទបានទេ?', a: 'បាន ដោយមិនចាំបាច់ដំឡើងកម្មវិធី៖ គ្រាន់តែបើកទំព័រនេះក្នុងកម្មវិធីរុករកនៃទូរស័ព្ទ។ អ្នកលេងលើទូរស័ព្ទ និងលើកុំព្យូទ័រអាចលេងតុតែមួយបាន។' },
      {
        q: 'អាចលេងដោយមិនអនឡាញក្នុងពេលតែមួយបានទេ?',
        a: 'បាន៖ ជ្រើស «{turn}» ពេលបើកតុ។ ដើរពេលណាក៏បានតាមចិត្ត ហើយយើងនឹងប្រាប់អ្នកពេលដល់វេនរបស់អ្នក។ តុដែលគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ បញ្ចប់ដោយខ្លួនឯង ដោយគ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។',
      },
      {
        q: 'លេខរាប់នៅក្បែរឈ្មោះអ្នកលេងមានន័យដូចម្តេច?',
        a: 'វាជាការរាប់ចុងល្បែង សរសេរជា n / L៖ ចំនួនដែលបានរាប់ និងកំណត់។ ខាងដែលត្រូវគេដេញរាប់ការដើររបស់ខ្លួន។ ពេលការរាប់ដល់កំណត់ ហើយការដើរចុងក្រោយរបស់គូប្រកួតមិនមែនជាការអុកស្លាប់ ល្បែងស្មើ។ មើលផ្នែក «ការរាប់» ខាងលើ។',
      },
    ],
    ouk: [
      { q: 'លេងបានប៉ុន្មាននាក់?', a: 'ពីរនាក់។ អ្នកក៏អាចលេងជាមួយកុំព្យូទ័របានដែរ (ប្រាំបីកម្រិត) ហើយអ្នកណាដែលមានតំណអាចចូលមើលបាន។' },
      { q: 'ល្បែងមួយប្រើពេលប៉ុន្មាន?', a: 'ប្រហែល ២០ នាទី។ គ្មាននាឡិកាកំណត់ម៉ោងទេ។ ល្បែងលេងតាមវេនអាចបន្តច្រើនថ្ងៃ។' },
      { q: 'តើត្រូវការគណនីទេ?', a: 'មិនត្រូវការទេ។ បើកតុ ផ្ញើតំណ ឬលេខកូដ ៦ តួ ហើយលេងបានភ្លាម។ មិត្តភក្តិរបស់អ្នកក៏មិនចាំបាច់មានគណនីដែរ។' },
      { q: 'អាចលេងលើទូរស័ព្ទបានទេ?', a: 'បាន ដោយមិនចាំបាច់ដំឡើងកម្មវិធី៖ គ្រាន់តែបើកទំព័រនេះក្នុងកម្មវិធីរុករកនៃទូរស័ព្ទ។ អ្នកលេងលើទូរស័ព្ទ និងលើកុំព្យូទ័រអាចលេងតុតែមួយបាន។' },
      {
        q: 'អាចលេងដោយមិនអនឡាញក្នុងពេលតែមួយបានទេ?',
        a: 'បាន៖ ជ្រើស «{turn}» ពេលបើកតុ។ ដើរពេលណាក៏បានតាមចិត្ត ហើយយើងនឹងប្រាប់អ្នកពេលដល់វេនរបស់អ្នក។ តុដែលគ្មានការដើររយៈពេល ៤៥ ថ្ងៃ បញ្ចប់ដោយខ្លួនឯង ដោយគ្មានអ្នកឈ្នះ ឬអ្នកចាញ់។',
      },
      {
        q: 'លេខរាប់នៅក្បែរឈ្មោះអ្នកលេងមានន័យដូចម្តេច?',
        a: 'វាជាការរាប់ចុងល្បែង សរសេរជា n / L៖ ចំនួនដែលបានរាប់ និងកំណត់។ ខាងដែលត្រូវគេដេញរាប់ការដើររបស់ខ្លួន។ ពេលការរាប់ដល់កំណត់ ហើយការដើរចុងក្រោយរបស់គូប្រកួតមិនមែនជាការអុកស្លាប់ ល្បែងស្មើ។ មើលផ្នែក «ការរាប់» ខាងលើ។',
      },
      {
        q: 'ខុសពីម៉ាករុកយ៉ាងដូចម្តេច?',
        a: '{k} និង{m}មានការលោតលើកដំបូង។ ការរាប់ក្តារចាប់ផ្តើមភ្លាម ពេលខាងណាមួយនៅសល់កូនអុកបី ឬតិចជាងនេះ ទោះបីនៅមាន{p}លើក្តារក៏ដោយ។ ការរាប់ចាប់ផ្តើមពីលេខធំជាងម៉ាករុកមួយ។ ទីតាំងដដែលស្មើតែពេលអ្នកលេងទាមទារ ហើយល្បែងដែលគ្មានខាងណាអាចអុកស្លាប់បាន គឺស្មើភ្លាម។',
      },
    ],
  },
  readyTitle: 'រួចរាល់ដើម្បីលេងហើយឬនៅ?',
  sep: ' ',
};

const ALL: Record<Lang, LearnText> = { en, th, km };

export function learnText(l: Lang): LearnText {
  return ALL[l];
}

/** All three, for checking that nothing is missing. */
export const ALL_LEARN_TEXT = ALL;
