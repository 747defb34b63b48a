// The game: the board (chessgroundx with our piece set), both players' bars (bars.ts),
// whose turn, check, the buttons (actions.ts), the move list that can be stepped
// through (movelist.ts) and the turn-based table's push prompt (turnprompt.ts). It
// renders the server's state and sends intents; it decides no rule.
import { Chessground } from 'chessgroundx';
import type { Api } from 'chessgroundx/api';
import type { Config } from 'chessgroundx/config';
import * as cg from 'chessgroundx/types';
import type { Color, GameState, Party, Player, Variant } from '../shared/api';
import type { ServerError } from '../shared/conn';
import { h, replace, setText } from '../shared/dom';
import { strings, t } from '../shared/i18n';
import { fillNotationPicker, labelCoords, onNotationChange, pieceLabels, script } from '../shared/notation';
import { GameActions } from './actions';
import { type PlayerBar, drawBar, drawClock, makeBar } from './bars';
import { clockRuleText } from '../shared/clock';
import { BoardKeys } from './boardkeys';
import { type Mark, MoveList } from './movelist';
import { QuickChat, phraseText } from './quickchat';
import { TurnPrompt } from './turnprompt';
import { MOVES_TO_RECOMMEND, RecommendCard, ownMoves } from '../community/recommend';
import { parsePlacement, START_FEN } from '../shared/placement';
import { rulesCore } from '../shared/core';
import { setTurnBadge } from '../turns/push';
import { play } from '../shared/sound';
import { formatDate } from '../shared/time';
import { connBanner, watchingText } from '../shared/ui';
import { placeLearnLink } from '../learn/route';
import { placeFeedbackLink } from '../community/route';

type Send = (m: Record<string, unknown>) => string | null;

const CG_COLOR: Record<Color, cg.Color> = { w: 'white', b: 'black' };

export class GameView {
  el: HTMLElement;
  private cg: Api | null = null;
  private boardBox: HTMLElement;
  private boardCol: HTMLElement;
  private topBar: PlayerBar;
  private clockTimer = 0;
  private bottomBar: PlayerBar;
  private statusEl: HTMLElement;
  private mainLine: HTMLElement;
  private subLine: HTMLElement;
  private actions: GameActions;
  private moves: MoveList;
  private metaEl: HTMLElement;
  private turnInfoEl: HTMLElement;
  private prompt: TurnPrompt;
  private lastBadge: boolean | null = null;
  private party: Party | null = null;
  private state: GameState | null = null;
  private seat: number | null = null;
  private plies: string[] | null = null; // placement before the first move and after each (from the core)
  private pliesKey = '';
  private viewPly: number | null = null; // null = follow the live position
  /** Told when the position shown changes (a review follows it). */
  onPly: ((ply: number) => void) | null = null;
  private arrow: string | null = null;
  private online = false;
  // The party message that was current when the connection dropped: who it says is online is
  // old news until the server sends the next one, so until then no dot claims to know.
  private stalePresence: Party | null = null;
  private startWhite = true;
  private pendingMove = false;
  private onKey = (e: KeyboardEvent) => this.key(e);
  private keys: BoardKeys;
  private heading: HTMLElement;
  private notationEl: HTMLElement;
  private offNotation: () => void;
  private chat: QuickChat;
  private recommend: RecommendCard;

  /** The board the analysis screen lends: both sides move (the seat given is the side
   * to move's), the board keeps its orientation, and there is no table around it (no
   * actions, messages, recommendation or "your turn"). */
  private readonly analysis: boolean;
  /** A game against the CPU on this device (practice/local.ts): no table to recommend. */
  private readonly local: boolean;
  private orientationChoice: cg.Color = 'white';

  constructor(
    private send: Send,
    private code: string,
    opts: { analysis?: boolean; local?: boolean } = {},
  ) {
    this.analysis = !!opts.analysis;
    this.local = !!opts.local;
    this.topBar = makeBar('bar-top');
    this.bottomBar = makeBar('bar-bottom');
    // A running clock is drawn again five times a second (only its bar's clock).
    this.clockTimer = window.setInterval(() => {
      const s = this.state;
      if (!s?.clock?.running) return;
      for (const bar of [this.topBar, this.bottomBar]) drawClock(bar, (bar.el.dataset.color ?? 'w') as Color, s);
    }, 200);
    this.boardBox = h('div', { class: 'board-box', 'data-testid': 'board' });
    this.boardCol = h('div', { class: 'board-col' }, this.topBar.el, this.boardBox, this.bottomBar.el);
    this.mainLine = h('div', { class: 'main-line', 'data-testid': 'status-main' });
    this.subLine = h('div', { class: 'sub-line', 'data-testid': 'status-sub' });
    this.statusEl = h('div', { class: 'status', 'data-testid': 'status', role: 'status', 'aria-live': 'polite' }, this.mainLine, this.subLine);
    this.actions = new GameActions(send);
    this.moves = new MoveList(
      (ply) => this.go(ply),
      () => this.viewPly ?? this.state?.moves.length ?? 0,
    );
    this.metaEl = h('div', { class: 'game-meta', 'data-testid': 'game-meta' });
    this.turnInfoEl = h('div', { class: 'turn-info', 'data-testid': 'turn-info', hidden: true });
    this.prompt = new TurnPrompt(code);
    this.notationEl = h('div', { class: 'notation-pick', 'data-testid': 'notation' });
    fillNotationPicker(this.notationEl);
    const side = h(
      'div',
      { class: 'side-col' },
      this.statusEl,
      this.turnInfoEl,
      this.prompt.el,
      this.actions.el,
      (this.chat = new QuickChat(code, (phrase) => this.send({ t: 'say', phrase }))).el,
      (this.recommend = new RecommendCard(code)).el,
      this.moves.nav,
      this.moves.viewing,
      this.moves.list,
      this.moves.help,
      this.notationEl,
      this.metaEl,
    );
    this.el = h('div', { class: 'game', 'data-testid': 'game' }, this.boardCol, side);
    // Keys and screen readers: the board as a grid of squares, a field to type a move in,
    // a log that reads the moves out, and the page's heading.
    this.keys = new BoardKeys(
      {
        selected: () => (this.cg?.state.selectable.selected as string | undefined) ?? null,
        pick: (sq) => this.cg?.selectSquare(sq as cg.Key),
        cancel: () => this.cg?.selectSquare(null),
        // the same path as a click on the piece and then on its square
        play: (from, to) => {
          if (!this.cg) return;
          if (this.cg.state.selectable.selected !== from) this.cg.selectSquare(from as cg.Key);
          this.cg.selectSquare(to as cg.Key);
        },
      },
      `game-${code}`,
    );
    this.heading = h('h1', { class: 'visually-hidden', 'data-testid': 'game-heading' });
    this.el.prepend(this.heading);
    this.el.append(this.keys.help, this.keys.log);
    this.moves.list.after(this.keys.form);
    document.addEventListener('keydown', this.onKey);
    this.offNotation = onNotationChange(() => this.relabel());
    // The offline banner finds a place that covers neither player's bar nor the board.
    connBanner.classList.add('over-game');
  }

  // ---------- state ----------

  update(party: Party, s: GameState, seat: number | null): void {
    const prev = this.state;
    const newGame = !prev || prev.game !== s.game;
    this.party = party;
    this.seat = seat;
    if (prev && !newGame && s.v < prev.v) return;
    this.state = s;
    this.pendingMove = false;
    if (newGame) this.viewPly = null;
    this.startWhite = (party.fen || START_FEN).split(' ')[1] !== 'b';
    this.askPositions(s.variant, party.rules.counting, party.fen || '', s.moves);
    if (this.viewPly !== null && this.viewPly >= s.moves.length) this.viewPly = null;
    if (!newGame && prev) this.sounds(prev, s);
    if (!newGame && prev) this.keys.sayChange(prev, s);
    this.render();
  }

  /** The placements before the first move and after each, from the rules core in this
   * browser (for stepping through the moves); the ones known stay until they come. */
  private askPositions(variant: Variant, counting: 'auto' | 'declare', start: string, moves: string[]): void {
    const key = `${variant}|${counting}|${start}|${moves.join(' ')}`;
    if (key === this.pliesKey) return;
    this.pliesKey = key;
    rulesCore()
      .positions(variant, counting, start, moves, this.analysis) // a record analysed may go on past its end
      .then(
        (r) => {
          if (this.pliesKey !== key || !this.state) return;
          this.plies = r.ok ? r.fens.map((f) => f.split(' ')[0]) : null;
          this.render();
        },
        () => {
          /* the core is away: no stepping */
        },
      );
  }

  private sounds(prev: GameState, s: GameState): void {
    if (s.result !== '*' && prev.result === '*') {
      play('end');
      return;
    }
    if (s.moves.length === prev.moves.length + 1) {
      const mv = s.moves[s.moves.length - 1];
      const mine = prev.turn === this.myColor();
      const captured = parsePlacement(prev.fen).has(mv.slice(2, 4));
      if (s.check) play('check');
      else if (!mine) play(captured ? 'capture' : 'move'); // my own move sounded when I made it
    }
  }

  setOnline(on: boolean): void {
    if (!on) this.stalePresence = this.party;
    this.online = on;
    if (this.state) this.render();
  }

  onError(_e: ServerError): void {
    // A refused intent: show the server's position again (the piece goes back).
    this.pendingMove = false;
    if (this.state) this.render(true);
  }

  private myColor(): Color | null {
    const s = this.state;
    if (!s || this.seat === null) return null;
    if (s.white === this.seat) return 'w';
    if (s.black === this.seat) return 'b';
    return null;
  }

  private playerAt(seat: number): Player | undefined {
    return this.party?.players.find((p) => p.seat === seat);
  }

  /** A quick message from a player: a bubble on their bar, read out too (unless hidden). */
  onSaid(seat: number, phrase: string): void {
    const s = this.state;
    if (!s || (seat !== this.seat && this.chat.isQuiet())) return;
    const color: Color = s.white === seat ? 'w' : 'b';
    const me = this.myColor();
    const bar = color === (me ?? 'w') ? this.bottomBar : this.topBar;
    this.chat.bubble(bar.el, phrase);
    if (seat !== this.seat) this.keys.say(t('said', { name: this.nameOfSeat(seat), text: phraseText(phrase) }));
  }

  private nameOfSeat(seat: number): string {
    return this.playerAt(seat)?.name ?? '';
  }

  private nameOf(color: Color): string {
    const s = this.state!;
    const p = this.playerAt(color === 'w' ? s.white : s.black);
    return p?.name ?? (color === 'w' ? t('white') : t('black'));
  }

  // ---------- rendering ----------

  private render(_forceBoard = false): void {
    const s = this.state!;
    const party = this.party!;
    const me = this.myColor();
    const live = this.viewPly === null;
    // A table that ended with no winner (45 days without a move, or a live table left for a day) is read-only.
    const expired = party.status === 'expired' || s.reason === 'expired';
    const over = s.result !== '*' || expired;
    const myTurnNow = !!me && !over && s.turn === me;

    this.renderBoard(me, live, myTurnNow && live, over);
    // player bars: me (or White for spectators) at the bottom
    const bottom: Color = this.analysis ? (this.orientationChoice === 'white' ? 'w' : 'b') : me ?? 'w';
    const top: Color = bottom === 'w' ? 'b' : 'w';
    this.renderBar(this.topBar, top, s, me);
    this.renderBar(this.bottomBar, bottom, s, me);
    const main = this.renderStatus(me, over, expired);

    if (this.analysis) this.actions.clear();
    else
      this.actions.render({
        state: s,
        party,
        seat: this.seat,
        me,
        over,
        expired,
        online: this.online,
        code: this.code,
        nameOf: (c) => this.nameOf(c),
        nameOfSeat: (seat) => this.nameOfSeat(seat),
      });
    // Quick messages: between two people at the table (not spectators, not the CPU).
    this.chat.el.hidden = !me || !!party.cpu || expired || this.analysis;
    // After a finished game in which they really played, a player may recommend it.
    const played = !!me && ownMoves(s.moves.length, s.turn, me) >= MOVES_TO_RECOMMEND;
    this.recommend.show(played && s.result !== '*' && !expired && !this.analysis && !this.local);
    this.moves.render(s, this.viewPly, !!this.plies);
    this.renderMeta();
    this.renderTurnInfo(over);
    // "Tell me when it's my turn", after this player's first move at a turn-based table
    this.prompt.update(party.mode === 'turn' && !!me && !over && this.iHaveMoved(me), over);

    // the tab title says when it is your turn (even while stepping through old moves)
    document.title = this.analysis
      ? `${t('analysisTitle')} · ${t('appName')}`
      : myTurnNow
        ? `● ${t('yourTurn')} · ${t('appName')}`
        : over
          ? `${main} · ${t('appName')}`
          : t('appName');
    this.el.dataset.yourTurn = String(myTurnNow);
    // and so does the app badge, for turn-based tables
    if (party.mode === 'turn' && me && this.lastBadge !== myTurnNow) {
      this.lastBadge = myTurnNow;
      setTurnBadge(this.code, myTurnNow);
    }
  }

  /** The board at the position shown, movable when it is this player's turn there; the
   * keys' view of it and the page's heading. */
  private renderBoard(me: Color | null, live: boolean, myTurn: boolean, over: boolean): void {
    const s = this.state!;
    const party = this.party!;
    // labels and their names
    this.boardCol.classList.toggle('labels', !!party.rules.labels);
    this.setLabelVars(s.variant);

    // board
    const orientation: cg.Color = this.analysis ? this.orientationChoice : me === 'b' ? 'black' : 'white';
    const ply = live ? s.moves.length : this.viewPly!;
    const fen = live || !this.plies || ply >= this.plies.length ? s.fen : this.plies[ply];
    const lastMoveStr = ply > 0 ? s.moves[ply - 1] : null;
    const turnAtPly: Color = live ? s.turn : (ply % 2 === 0) === this.startTurnWhite() ? 'w' : 'b';
    const sanAt = ply > 0 ? s.san[ply - 1] ?? '' : '';
    const checkAtPly = live ? s.check : /[+#]$/.test(sanAt);
    const dests: cg.Dests = new Map();
    if (myTurn) {
      for (const m of s.legal) {
        const from = m.slice(0, 2) as cg.Key;
        const to = m.slice(2, 4) as cg.Key;
        const list = dests.get(from) ?? [];
        if (!list.includes(to)) list.push(to);
        dests.set(from, list);
      }
    }
    const config: Config = {
      fen,
      orientation,
      turnColor: CG_COLOR[turnAtPly],
      check: checkAtPly ? CG_COLOR[turnAtPly] : false,
      lastMove: lastMoveStr ? [lastMoveStr.slice(0, 2) as cg.Key, lastMoveStr.slice(2, 4) as cg.Key] : undefined,
      notation: script() === 'th' ? cg.Notation.THAI_ALGEBRAIC : cg.Notation.ALGEBRAIC,
      movable: {
        free: false,
        color: myTurn && !this.pendingMove ? CG_COLOR[me!] : undefined,
        dests,
        showDests: !!party.rules.showLegal,
      },
    };
    if (!this.cg) {
      this.cg = Chessground(this.boardBox, {
        ...config,
        dimensions: { width: 8, height: 8 },
        coordinates: true,
        addPieceZIndex: false,
        disableContextMenu: true,
        addDimensionsCssVarsTo: this.boardCol,
        highlight: { lastMove: true, check: true },
        animation: { enabled: true, duration: 180 },
        premovable: { enabled: false },
        draggable: { enabled: true, showGhost: true },
        selectable: { enabled: true },
        drawable: { enabled: true },
        events: { move: () => {}, insert: (els) => labelCoords(els.container) },
        movable: {
          ...config.movable,
          events: { after: (orig, dest) => this.onUserMove(orig as string, dest as string) },
        },
      });
      this.cg.state.dom.elements.wrap.classList.add('thai-board');
      this.boardBox.dataset.orientation = orientation;
    } else {
      if (this.cg.state.notation !== config.notation) {
        this.cg.set(config);
        this.cg.redrawAll();
        this.cg.state.dom.elements.wrap.classList.add('thai-board');
      } else {
        this.cg.set(config);
      }
      this.boardBox.dataset.orientation = orientation;
      labelCoords(this.cg.state.dom.elements.container);
    }
    this.boardBox.dataset.fen = fen;
    this.boardBox.dataset.myturn = String(myTurn);
    this.drawArrow();
    this.keys.sync(this.boardBox, { fen, orientation, variant: s.variant, me, canMove: myTurn && !this.pendingMove, live, over, legal: myTurn ? s.legal : [] });
    // A game's own page has no table to name.
    const what = this.analysis ? t('analysisTitle') : this.code ? `${t('tableCode')}: ${this.code}` : t('gameRecord');
    setText(this.heading, `${s.variant === 'ouk' ? t('ouk') : t('makruk')} · ${what}`);
  }

  /** Whose turn, or how the game ended; returns the main line (the tab's title uses it). */
  private renderStatus(me: Color | null, over: boolean, expired: boolean): string {
    const s = this.state!;
    const party = this.party!;
    this.statusEl.classList.toggle('over', over);
    this.statusEl.classList.toggle('check', s.check && !over);
    this.statusEl.classList.toggle('expired', expired);
    let main: string;
    let sub = '';
    if (expired) {
      main = t('noWinner');
      const r = t(party.mode === 'turn' ? 'reason_expired' : 'reason_expiredLive');
      sub = r.charAt(0).toUpperCase() + r.slice(1);
    } else if (over) {
      const draw = s.result === '1/2-1/2';
      const winner: Color | null = s.result === '1-0' ? 'w' : s.result === '0-1' ? 'b' : null;
      if (draw) main = t('draw');
      else if (me) main = winner === me ? t('youWin') : t('youLose');
      else main = winner === 'w' ? t('whiteWins') : t('blackWins');
      if (!draw && me) sub = winner === 'w' ? t('whiteWins') : t('blackWins');
      const reason = s.reason ? this.reasonText(s.reason) : '';
      sub = sub ? `${sub} · ${reason}` : reason;
    } else {
      main = s.turn === me ? t('yourTurn') : t('theirTurn', { name: this.nameOf(s.turn) });
      if (s.check) main = `${t('check')} ${main}`;
      const toMove = this.playerAt(s.turn === 'w' ? s.white : s.black);
      if (toMove?.cpu) sub = t('cpuThinking');
      else if (!me) sub = t('spectating');
    }
    setText(this.mainLine, main);
    setText(this.subLine, sub);
    this.statusEl.dataset.result = s.result;
    this.statusEl.dataset.reason = s.reason ?? (expired ? 'expired' : '');
    this.statusEl.dataset.expired = String(expired);
    this.el.classList.toggle('read-only', expired);
    this.statusEl.dataset.turn = s.turn;
    this.statusEl.dataset.check = String(s.check);
    return main;
  }

  private renderTurnInfo(over: boolean): void {
    const p = this.party!;
    const el = this.turnInfoEl;
    if (p.mode !== 'turn') {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const text = !over && typeof p.expiresAt === 'number' ? t('turnInfo', { date: formatDate(p.expiresAt) }) : t('turnBased');
    setText(el, text);
    if (typeof p.expiresAt === 'number') el.dataset.expiresAt = String(p.expiresAt);
    else delete el.dataset.expiresAt;
  }

  /** Whether this player has made a move in this game (the prompt comes after the first). */
  private iHaveMoved(me: Color): boolean {
    const s = this.state!;
    const first: Color = this.startWhite ? 'w' : 'b';
    return s.moves.length > (me === first ? 0 : 1);
  }

  private startTurnWhite(): boolean {
    return this.startWhite;
  }

  private renderBar(bar: PlayerBar, color: Color, s: GameState, me: Color | null): void {
    const p = this.playerAt(color === 'w' ? s.white : s.black);
    // no presence dot for the CPU or without a table (a game's own page, the analysis
    // board); no "you" on the analysis board
    const presence = !p || p.cpu || !this.code ? null : !this.online || this.party === this.stalePresence ? 'unknown' : p.online ? 'on' : 'off';
    drawBar(bar, color, s, { name: p?.name ?? null, presence, mine: color === me && !this.analysis });
  }

  private reasonText(reason: string): string {
    const key = `reason_${reason}` as keyof ReturnType<typeof strings>;
    const v = strings()[key];
    return typeof v === 'string' ? v : reason;
  }

  private onUserMove(orig: string, dest: string): void {
    const s = this.state;
    if (!s) return;
    const move = s.legal.find((m) => m.slice(0, 4) === orig + dest);
    if (!move) {
      this.render(true);
      return;
    }
    const captured = parsePlacement(s.fen).has(dest);
    play(captured ? 'capture' : 'move');
    this.pendingMove = true;
    if (this.send({ t: 'move', v: s.v, move }) === null) {
      this.pendingMove = false;
      this.render(true);
    }
  }

  // ---------- moves ----------

  private go(ply: number): void {
    const s = this.state;
    if (!s || !this.plies) return;
    const n = s.moves.length;
    const p = Math.max(0, Math.min(n, ply));
    this.viewPly = p === n ? null : p;
    this.render();
    this.onPly?.(p);
  }

  /** An arrow on the board (a review's better move, "e3e4"), or none. */
  setArrow(move: string | null): void {
    this.arrow = move;
    this.drawArrow();
  }

  private drawArrow(): void {
    if (!this.cg) return;
    const m = this.arrow;
    this.cg.setAutoShapes(m ? [{ orig: m.slice(0, 2) as cg.Key, dest: m.slice(2, 4) as cg.Key, brush: 'green' }] : []);
    this.boardBox.dataset.arrow = m ?? '';
  }

  /** Turns the board around (the analysis board). */
  flip(): void {
    this.orientationChoice = this.orientationChoice === 'white' ? 'black' : 'white';
    if (this.state) this.render();
  }

  /** Shows the position after `ply` moves (0: the start). */
  showPly(ply: number): void {
    this.go(ply);
  }

  /** Marks moves in the list (a review's "?!", "?", "??"), by ply - 1. */
  setMarks(marks: Mark[]): void {
    this.moves.marks = marks;
    if (this.state) this.moves.render(this.state, this.viewPly, !!this.plies);
  }

  private key(e: KeyboardEvent): void {
    const tgt = e.target as HTMLElement | null;
    if (tgt && (tgt.tagName === 'INPUT' || tgt.tagName === 'TEXTAREA' || tgt.tagName === 'SELECT')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const cur = this.viewPly ?? this.state?.moves.length ?? 0;
    // In the move list (one Tab stop) the up and down arrows step too, as in a list.
    const inList = !!tgt && this.moves.list.contains(tgt);
    if (e.key === 'ArrowLeft' || (inList && e.key === 'ArrowUp')) this.go(cur - 1);
    else if (e.key === 'ArrowRight' || (inList && e.key === 'ArrowDown')) this.go(cur + 1);
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(Number.MAX_SAFE_INTEGER);
    else return;
    e.preventDefault();
  }

  private renderMeta(): void {
    const p = this.party!;
    const s = this.state!;
    const bits = [
      s.variant === 'ouk' ? t('ouk') : t('makruk'),
      t('gameNo', { n: s.number }),
      `${t('countStart')}: ${p.rules.counting === 'declare' ? t('countDeclare') : t('countAuto')}`,
      clockRuleText(p.rules.clock),
    ];
    if (p.code) bits.push(`${t('tableCode')}: ${p.code}`);
    if (p.spectators > 0) bits.push(watchingText(p));
    replace(
      this.metaEl,
      bits.map((b) => h('span', null, b)),
    );
    placeLearnLink(this.metaEl, s.variant);
    placeFeedbackLink(this.metaEl, p.code);
  }

  private setLabelVars(variant: string): void {
    const names = pieceLabels(variant);
    const st = this.boardCol.style;
    for (const [k, v] of Object.entries(names)) st.setProperty(`--lbl-${k}`, JSON.stringify(v));
  }

  relabel(): void {
    this.moves.buildNav();
    this.keys.relabel();
    this.chat.relabel();
    fillNotationPicker(this.notationEl);
    this.actions.forget();
    this.prompt.relabel();
    if (this.state) this.render();
  }

  destroy(): void {
    window.clearInterval(this.clockTimer);
    this.prompt.destroy();
    document.removeEventListener('keydown', this.onKey);
    this.offNotation();
    connBanner.classList.remove('over-game');
    // Chessground keeps observing the page's size after destroy() and may draw its
    // shapes once more into the detached board, whose size is 0: an arrow there
    // gets NaN coordinates (a console error). Nothing is left to draw.
    this.cg?.setAutoShapes([]);
    this.cg?.destroy();
    this.cg = null;
  }
}
