// /analysis: the free analysis board. Moves for both sides on the game screen's board,
// checked by the rules core in this browser (WebAssembly); the engine's three best lines
// and their evaluations, live (a line's first move is played by choosing it); a position from a game (/analysis?variant=…&fen=…&moves=…), a FEN, a
// PGN or a plain list of moves; and from any position, a game against the CPU or a table
// to invite a friend to.
import { api, saveName, saveSeat, type Variant } from '../shared/api';
import { Core, rulesCore, type CoreGame, type CoreRecord, type CoreSearch } from '../shared/core';
import { h } from '../shared/dom';
import { messageText, strings, t } from '../shared/i18n';
import { moveNumber, moveText } from '../shared/notation';
import { errorText, navigate, type Screen } from '../shared/ui';
import { GameView } from '../game/game';
import { SetupBoard } from './setup';
import { fromCore, standIn } from '../game/standin';
import { nameField, type NameField } from '../shared/namefield';
import { newLocalGame, unreachable } from '../practice/games';

/** "cp 35" / "mate -3" for the side to move, written for White: "+0.35", "#3", "-#2". */
export function scoreText(score: string, whiteToMove: boolean): string {
  const [kind, raw] = score.split(' ');
  let n = Number(raw);
  if (!whiteToMove) n = -n;
  if (kind === 'mate') return n > 0 ? `#${n}` : `-#${-n}`;
  const pawns = (n / 100).toFixed(2);
  return n > 0 ? `+${pawns}` : pawns;
}

/** How many of the engine's best moves the board shows, each with its line. */
const LINES = 3;
/** How long the engine thinks about a position before it rests (a phone's battery): it
 * finishes the depth under way, then offers to think longer (twice as long again, from
 * where it rested, and at least the next depth whatever it takes). */
const THINK_MS = 12000;
const MAX_DEPTH = 30;

export class AnalysisScreen implements Screen {
  el: HTMLElement;
  wide = true;
  private rules = rulesCore(); // shared with the board's stepping: one copy of the rules
  private engine = new Core();
  private variant: Variant;
  private start: string;
  private moves: string[];
  private view: GameView;
  private now: CoreGame | null = null;
  /** Who waits for the first position to be read (a table asked for meanwhile). */
  private waiting: (() => void)[] = [];
  private line: HTMLElement;
  private lines: HTMLOListElement;
  /** "Think longer", shown once the engine rests before its deepest search. */
  private more: HTMLButtonElement;
  private budget = THINK_MS;
  private reached = 0; // the depth the engine has reached on the position shown
  private fenOut: HTMLInputElement;
  private importText: HTMLTextAreaElement;
  private importError: HTMLElement;
  /** A collection's games to pick from (hidden for a text of one game). */
  private gamesPick: HTMLSelectElement;
  private gamesBox: HTMLElement;
  private importedText = '';
  private listed: CoreRecord | null = null;
  /** Where our rules ended a record that goes on past it. */
  private endedNote: HTMLElement;
  private who: NameField;
  private tableError: HTMLElement;
  private level: HTMLSelectElement;
  private destroyed = false;
  private setupBox: HTMLElement;
  private shown = 0; // refreshes started, so that a late answer is dropped
  private line_ = 1; // the board's "game": a new one unless the list grew by the move just made
  private grew = false;

  constructor(search: URLSearchParams) {
    this.variant = search.get('variant') === 'ouk' ? 'ouk' : 'makruk';
    this.start = search.get('fen') ?? '';
    this.moves = (search.get('moves') ?? '').split(/[\s,]+/).filter(Boolean);
    this.view = new GameView(
      (m) => {
        void this.onMove(m);
        return 'local';
      },
      '',
      { analysis: true },
    );
    this.line = h('p', { class: 'engine-line', role: 'status', 'aria-live': 'polite', 'data-testid': 'engine-line' });
    this.lines = h('ol', { class: 'engine-lines', 'data-testid': 'engine-lines', 'aria-label': t('analysisLines') }) as HTMLOListElement;
    this.more = h('button', { type: 'button', class: 'btn engine-more', 'data-testid': 'engine-more', hidden: true }, t('analysisMore')) as HTMLButtonElement;
    this.more.addEventListener('click', () => {
      const g = this.now;
      if (!g) return;
      this.budget *= 2;
      void this.think(g, this.shown, this.reached + 1);
    });
    this.fenOut = h('input', { type: 'text', readonly: true, id: 'analysis-fen', class: 'fen-out', 'data-testid': 'analysis-fen' });
    this.importText = h('textarea', { id: 'analysis-import', rows: 4, 'data-testid': 'import-text', spellcheck: 'false' });
    this.importError = h('p', { class: 'error', role: 'alert', 'data-testid': 'import-error' });
    this.gamesPick = h('select', { id: 'analysis-games', 'data-testid': 'import-games' }) as HTMLSelectElement;
    this.gamesPick.addEventListener('change', () => void this.load(Number(this.gamesPick.value), this.importedText));
    this.gamesBox = h('div', { class: 'analysis-games', hidden: true }, h('label', { for: 'analysis-games' }), this.gamesPick);
    this.endedNote = h('p', { class: 'rules-ended', role: 'status', 'data-testid': 'rules-ended', hidden: true });
    // The name the table shows to the friend (and on the board): the one kept from last
    // time, or asked for, as on the new-table screen; never a colour.
    this.who = nameField();
    this.tableError = h('p', { class: 'error', role: 'alert', 'data-testid': 'analysis-table-error' });
    this.level = h(
      'select',
      { id: 'analysis-level', 'data-testid': 'analysis-level' },
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => h('option', { value: String(n), selected: n === 4 ? true : undefined }, String(n))),
    );
    const variantPick = h(
      'select',
      { id: 'analysis-variant', 'data-testid': 'analysis-variant' },
      h('option', { value: 'makruk', selected: this.variant === 'makruk' ? true : undefined }, t('makruk')),
      h('option', { value: 'ouk', selected: this.variant === 'ouk' ? true : undefined }, t('ouk')),
    );
    variantPick.addEventListener('change', () => {
      this.variant = variantPick.value === 'ouk' ? 'ouk' : 'makruk';
      this.start = '';
      this.moves = [];
      void this.refresh();
    });
    const button = (id: string, text: string, run: () => void, cls = 'btn') => {
      const b = h('button', { type: 'button', class: cls, 'data-testid': id }, text);
      b.addEventListener('click', run);
      return b;
    };
    const panel = h(
      'section',
      { class: 'analysis-panel', 'aria-labelledby': 'analysis-title' },
      h('h2', { id: 'analysis-title' }, t('analysisEngine')),
      this.endedNote,
      this.line,
      this.lines,
      this.more,
      h(
        'div',
        { class: 'analysis-row' },
        h('label', { for: 'analysis-variant' }, t('variant')),
        variantPick,
        button('analysis-back', t('analysisTakeBack'), () => {
          this.moves.pop();
          void this.refresh();
        }),
        button('analysis-flip', t('analysisFlip'), () => this.view.flip()),
        button('analysis-setup', t('setupOpen'), () => this.openSetup()),
        button('analysis-reset', t('analysisStart'), () => {
          this.start = '';
          this.moves = [];
          void this.refresh();
        }),
      ),
      h('label', { for: 'analysis-fen' }, 'FEN'),
      this.fenOut,
      this.who.field,
      h(
        'div',
        { class: 'analysis-row' },
        h('label', { for: 'analysis-level' }, t('analysisLevel')),
        this.level,
        button('analysis-cpu', t('analysisPlayCpu'), () => void this.table(true), 'btn primary'),
        button('analysis-invite', t('analysisInvite'), () => void this.table(false)),
      ),
      this.tableError,
      h('label', { for: 'analysis-import' }, t('analysisImport')),
      this.importText,
      button('import-load', t('analysisLoad'), () => void this.load()),
      this.gamesBox,
      this.importError,
    );
    this.setupBox = h('div', { class: 'setup-box' });
    this.el = h('div', { class: 'analysis', 'data-testid': 'analysis' }, this.view.el, this.setupBox, panel);
    void this.refresh();
  }

  /** The set-up: from the position on the board; the core judges the result. */
  private openSetup(): void {
    const fen = this.now?.fen ?? '';
    // The engine rests while the board is away (a late line would draw on a hidden board).
    this.shown++;
    this.engine.stop();
    this.more.hidden = true;
    this.view.setArrow(null);
    const close = () => {
      this.setupBox.replaceChildren();
      this.view.el.hidden = false;
    };
    const setup = new SetupBoard(
      this.variant,
      fen,
      async (f) => {
        try {
          const g = await this.rules.game(this.variant, 'auto', f, []);
          return g.ok ? null : messageText(g);
        } catch {
          return '?';
        }
      },
      (f) => {
        close();
        this.start = f;
        this.moves = [];
        void this.refresh();
      },
      () => {
        close();
        void this.refresh();
      },
    );
    this.view.el.hidden = true;
    this.setupBox.replaceChildren(setup.el);
    (setup.el.querySelector('button') as HTMLElement | null)?.focus();
  }

  private async onMove(m: Record<string, unknown>): Promise<void> {
    if (m.t !== 'move' || typeof m.move !== 'string') return;
    this.moves.push(m.move);
    this.grew = true;
    await this.refresh();
  }

  /** The position now, from the core, onto the board; then the engine on it. */
  private async refresh(): Promise<void> {
    const mine = ++this.shown;
    this.more.hidden = true;
    if (!this.grew) this.line_++;
    this.grew = false;
    this.engine.stop();
    let g: CoreGame;
    try {
      // A record that goes on past the end our rules give it plays on, that end marked.
      g = await this.rules.game(this.variant, 'auto', this.start, this.moves, true);
    } catch {
      return; // stopped, or the page went away
    }
    if (this.destroyed || mine !== this.shown) return;
    if (!g.ok) {
      // A refused start (a FEN no game can begin from): back to the usual one, and say why.
      this.importError.textContent = messageText(g);
      this.start = '';
      this.moves = [];
      return void this.refresh();
    }
    this.now = g;
    for (const go of this.waiting.splice(0)) go();
    this.fenOut.value = g.fen;
    this.el.dataset.fen = g.fen;
    const { party, state } = standIn({
      variant: this.variant,
      counting: 'auto',
      startFen: this.start,
      white: { name: t('white') },
      black: { name: t('black') },
      cpu: null,
      game: this.line_,
      number: 1,
      moves: this.moves.slice(),
      ...fromCore(g),
    });
    // A new list of moves is a new "game" for the board when it is not the last one plus a move.
    this.view.update(party, state, g.turn === 'w' ? 0 : 1);
    this.showEnded(g);
    this.view.setArrow(null);
    this.lines.replaceChildren();
    delete this.line.dataset.depth;
    if (g.result !== '*' || !g.legal.length) {
      this.line.textContent = t('analysisOver');
      return;
    }
    this.line.textContent = t('analysisThinking');
    this.budget = THINK_MS;
    this.reached = 0;
    await this.think(g, mine, 1);
  }

  /** The engine on the position shown from depth `from`, for `this.budget`; then "Think
   * longer" unless it went as deep as it goes. */
  private async think(g: CoreGame, mine: number, from: number): Promise<void> {
    this.more.hidden = true;
    const progress = (p: CoreSearch) => {
      if (mine === this.shown && p.ok) this.reached = p.depth;
      void this.showLines(p, g, mine);
    };
    try {
      const r = await this.engine.search(this.variant, this.start, this.moves, MAX_DEPTH, progress, LINES, true, this.budget, from);
      if (mine !== this.shown || this.destroyed) return;
      // (a search taken up again may rest before its first depth: nothing new, and ok)
      this.more.hidden = this.reached >= MAX_DEPTH || (!r.ok && from === 1);
    } catch {
      // stopped: a newer position is being searched
    }
  }

  /** Where our rules ended a record that goes on: a mark in the move list after that move, and a note. */
  private showEnded(g: CoreGame): void {
    const e = g.ended;
    const marks: ({ text: string; kind: string } | null)[] = [];
    this.endedNote.hidden = !e;
    if (!e) {
      this.endedNote.textContent = '';
      this.view.setMarks(marks);
      return;
    }
    const all = strings() as unknown as Record<string, string>;
    const result = e.result === '1-0' ? t('whiteWins') : e.result === '0-1' ? t('blackWins') : t('draw');
    const reason = all[`reason_${e.reason}`] ?? e.reason;
    if (e.ply === 0) {
      this.endedNote.textContent = t('analysisRulesEndedStart', { result, reason });
    } else {
      const i = e.ply - 1;
      const move = `${moveNumber(Math.floor(i / 2) + 1)}${i % 2 ? '..' : ''} ${moveText(g.san[i] ?? '', this.moves[i])}`;
      this.endedNote.textContent = t('analysisRulesEnded', { move, result, reason });
      marks[i] = { text: '‖', kind: 'ended' };
    }
    this.endedNote.dataset.ply = String(e.ply);
    this.view.setMarks(marks);
  }

  /** The engine's lines after a depth: each in the notation chosen, with its score; the best as an arrow. */
  private async showLines(p: CoreSearch, at: CoreGame, mine: number): Promise<void> {
    if (mine !== this.shown || this.destroyed || !p.ok) return;
    const shown: { score: string; pv: string[]; sans: string[] }[] = [];
    for (const l of p.lines) {
      const pv = l.pv.slice(0, 8);
      let sans: string[] = pv;
      try {
        const after = await this.rules.game(this.variant, 'auto', this.start, [...this.moves, ...pv], true);
        if (after.ok) sans = after.san.slice(after.san.length - pv.length).map((s, i) => moveText(s, pv[i]));
      } catch {
        return;
      }
      shown.push({ score: scoreText(l.score, at.turn === 'w'), pv, sans });
    }
    if (mine !== this.shown || this.destroyed) return;
    this.line.dataset.depth = String(p.depth);
    this.line.dataset.best = p.best;
    this.line.textContent = `${t('analysisDepth', { depth: p.depth })} · ${shown[0]?.score ?? ''}`;
    this.lines.replaceChildren(
      ...shown.map((l) => {
        const b = h(
          'button',
          { type: 'button', class: 'engine-pv', 'data-move': l.pv[0], title: t('analysisPlayLine') },
          h('span', { class: 'engine-score' }, l.score),
          ' ',
          h('span', { class: 'engine-moves' }, l.sans.join(' ')),
        );
        b.addEventListener('click', () => {
          if (mine !== this.shown || !l.pv[0]) return;
          this.moves.push(l.pv[0]);
          this.grew = true;
          void this.refresh();
        });
        return h('li', {}, b);
      }),
    );
    this.view.setArrow(p.best);
  }

  /** Reads the text box: a PGN, a plain list of moves, or a FEN; of a collection, the game
   * picked (`index`) from the text read when the list was made (`text`). */
  private async load(index = 0, text = this.importText.value): Promise<void> {
    if (!text.trim()) {
      // nothing to read: say so, rather than nothing at all
      this.importError.textContent = t('analysisImportEmpty');
      this.importText.focus();
      return;
    }
    let r: CoreRecord;
    try {
      r = await this.rules.pgn(text, this.variant, index);
    } catch {
      return;
    }
    this.listed = r;
    this.showGames(r, text);
    if (!r.ok) {
      this.importError.textContent = t('analysisImportError', { error: messageText(r) });
      return;
    }
    this.importError.textContent = '';
    this.variant = r.variant;
    (this.el.querySelector('[data-testid="analysis-variant"]') as HTMLSelectElement).value = r.variant;
    this.start = r.fen;
    this.moves = r.moves;
    await this.refresh();
  }

  /** A collection's games, one to pick: "3. Somchai – Dara, 1-0 (Bangkok Open, 2024.05.01)". */
  private showGames(r: CoreRecord, text: string): void {
    const games = r.games ?? [];
    this.gamesBox.hidden = games.length < 2;
    this.importedText = text;
    if (games.length < 2) return this.gamesPick.replaceChildren();
    (this.gamesBox.querySelector('label') as HTMLElement).textContent = t('analysisGames', { n: games.length });
    this.gamesPick.replaceChildren(
      ...games.map((g, i) => {
        const tag = (k: string) => (g.tags?.[k] ?? '').trim();
        const seen = (v: string) => (v && v !== '?' ? v : '');
        let label = `${i + 1}. `;
        if (!g.ok) label += t('analysisGameUnreadable');
        else {
          label += `${seen(tag('White')) || '?'} – ${seen(tag('Black')) || '?'}, ${g.result ?? '*'}`;
          const where = [seen(tag('Event')), seen(tag('Date'))].filter(Boolean).join(', ');
          if (where) label += ` (${where})`;
        }
        return h('option', { value: String(i), selected: i === (r.index ?? 0) ? true : undefined }, label);
      }),
    );
  }

  /** A table from the position now: against the CPU, or to invite a friend to. */
  private async table(cpu: boolean): Promise<void> {
    this.tableError.textContent = '';
    const name = this.who.read(this.tableError);
    if (!name) return;
    // A click before the position is read waits for it (10 s at most), rather than being lost.
    if (!this.now)
      await new Promise<void>((go) => {
        this.waiting.push(go);
        setTimeout(go, 10000);
      });
    const fen = this.now?.fen;
    if (!fen) return;
    // Against the CPU without the server (offline, or unreachable): a game on this device.
    const here = () => {
      const g = newLocalGame({
        variant: this.variant,
        counting: 'auto',
        level: Number(this.level.value),
        name,
        rules: { counting: 'auto', showLegal: true, swapColors: false, labels: true },
        startFen: fen,
      });
      saveName(name);
      navigate(`/local/${g.id}`);
    };
    if (cpu && navigator.onLine === false) return here();
    try {
      const r = await api.create({
        name,
        variant: this.variant,
        counting: 'auto',
        showLegal: true,
        swapColors: false,
        labels: true,
        cpu: cpu ? Number(this.level.value) : null,
        fen,
      });
      saveName(name);
      saveSeat(r.code, { token: r.token, seat: r.seat ?? 0, name });
      navigate(`/p/${r.code}`);
    } catch (e) {
      if (cpu && unreachable(e)) return here();
      this.tableError.textContent = errorText(e);
    }
  }

  relabel(): void {
    this.view.relabel();
    if (this.now) this.showEnded(this.now);
    if (this.listed) this.showGames(this.listed, this.importedText);
  }

  destroy(): void {
    this.destroyed = true;
    this.engine.stop();
    this.view.destroy();
  }
}
