// The game: the board (chessgroundx with our piece set), both players, whose turn,
// check, the count beside the counting side, the count/claim/resign/rematch buttons,
// and the move list that can be stepped through. It renders the server's state and
// sends intents; it decides no rule.
import { Chessground } from 'chessgroundx';
import type { Api } from 'chessgroundx/api';
import type { Config } from 'chessgroundx/config';
import * as cg from 'chessgroundx/types';
import type { Color, GameState, Party, Player, Variant } from '../shared/api';
import type { ServerError } from '../shared/conn';
import { h, replace, setText } from '../shared/dom';
import { digits, lang, strings, t } from '../shared/i18n';
import { fillNotationPicker, labelCoords, moveNumber, moveText, onNotationChange, pieceLabels, script } from '../shared/notation';
import { BoardKeys } from './boardkeys';
import { QuickChat, phraseText } from './quickchat';
import { MOVES_TO_RECOMMEND, RecommendCard, ownMoves } from '../community/recommend';
import { pieceSvg } from '../shared/pieces';
import { parsePlacement, START_FEN } from '../shared/placement';
import { rulesCore } from '../shared/core';
import { enablePush, notNow, permission, setNotNow, setTurnBadge } from '../turns/push';
import { play } from '../shared/sound';
import { formatDate } from '../shared/time';
import { confirmDialog, connBanner, link, watchingText } from '../shared/ui';
import { placeLearnLink } from '../learn/route';
import { placeFeedbackLink } from '../community/route';

type Send = (m: Record<string, unknown>) => string | null;

const CG_COLOR: Record<Color, cg.Color> = { w: 'white', b: 'black' };

interface PlayerBar {
  el: HTMLElement;
  chip: HTMLImageElement;
  name: HTMLElement;
  tags: HTMLElement;
  count: HTMLElement;
}

function makeBar(testid: string): PlayerBar {
  const chip = h('img', { class: 'chip', alt: '' });
  const name = h('span', { class: 'pname' });
  const tags = h('span', { class: 'ptags', style: { display: 'flex', gap: '4px', alignItems: 'center' } });
  const count = h('span', { class: 'count', 'data-testid': `${testid}-count`, 'aria-live': 'polite' });
  const el = h('div', { class: 'pbar', 'data-testid': testid }, chip, name, tags, count);
  return { el, chip, name, tags, count };
}

let viewIds = 0; // tells apart the ids of the views made in one page

export class GameView {
  el: HTMLElement;
  private cg: Api | null = null;
  private boardBox: HTMLElement;
  private boardCol: HTMLElement;
  private topBar: PlayerBar;
  private bottomBar: PlayerBar;
  private statusEl: HTMLElement;
  private mainLine: HTMLElement;
  private subLine: HTMLElement;
  private actionsEl: HTMLElement;
  private movesEl: HTMLElement;
  private movesHelp: HTMLElement;
  private navEl: HTMLElement;
  private viewingEl: HTMLElement;
  private metaEl: HTMLElement;
  private turnInfoEl: HTMLElement;
  private notifyEl: HTMLElement;
  private notifyState: 'none' | 'asking' | 'working' | 'done' = 'none';
  private notifyTimer: number | undefined;
  private lastBadge: boolean | null = null;
  private party: Party | null = null;
  private state: GameState | null = null;
  private seat: number | null = null;
  private plies: string[] | null = null; // placement before the first move and after each (from the core)
  private pliesKey = '';
  private viewPly: number | null = null; // null = follow the live position
  /** Marks after moves (by ply - 1): "?!", "?", "??" from a review. */
  private marks: ({ text: string; kind: string } | null)[] = [];
  /** Told when the position shown changes (a review follows it). */
  onPly: ((ply: number) => void) | null = null;
  private arrow: string | null = null;
  private online = false;
  // The party message that was current when the connection dropped: who it says is online is
  // old news until the server sends the next one, so until then no dot claims to know.
  private stalePresence: Party | null = null;
  private startWhite = true;
  private pendingMove = false;
  private actionsKey = '';
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
    this.boardBox = h('div', { class: 'board-box', 'data-testid': 'board' });
    this.boardCol = h('div', { class: 'board-col' }, this.topBar.el, this.boardBox, this.bottomBar.el);
    this.mainLine = h('div', { class: 'main-line', 'data-testid': 'status-main' });
    this.subLine = h('div', { class: 'sub-line', 'data-testid': 'status-sub' });
    this.statusEl = h('div', { class: 'status', 'data-testid': 'status', role: 'status', 'aria-live': 'polite' }, this.mainLine, this.subLine);
    this.actionsEl = h('div', { class: 'actions', 'data-testid': 'actions' });
    this.navEl = h('div', { class: 'moves-nav' });
    this.movesHelp = h('div', { class: 'visually-hidden', id: `moves-help-${++viewIds}` });
    this.movesEl = h('div', { class: 'movelist', 'data-testid': 'moves', role: 'group', 'aria-describedby': this.movesHelp.id });
    this.viewingEl = h('div', { class: 'viewing', 'data-testid': 'viewing' });
    this.metaEl = h('div', { class: 'game-meta', 'data-testid': 'game-meta' });
    this.turnInfoEl = h('div', { class: 'turn-info', 'data-testid': 'turn-info', hidden: true });
    this.notifyEl = h('div', { class: 'notify-box', 'aria-live': 'polite' });
    this.notationEl = h('div', { class: 'notation-pick', 'data-testid': 'notation' });
    fillNotationPicker(this.notationEl);
    const side = h(
      'div',
      { class: 'side-col' },
      this.statusEl,
      this.turnInfoEl,
      this.notifyEl,
      this.actionsEl,
      (this.chat = new QuickChat(code, (phrase) => this.send({ t: 'say', phrase }))).el,
      (this.recommend = new RecommendCard(code)).el,
      this.navEl,
      this.viewingEl,
      this.movesEl,
      this.movesHelp,
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
    this.movesEl.after(this.keys.form);
    this.buildNav();
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
    const myTurn = myTurnNow && live;

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

    // player bars: me (or White for spectators) at the bottom
    const bottom: Color = this.analysis ? (this.orientationChoice === 'white' ? 'w' : 'b') : me ?? 'w';
    const top: Color = bottom === 'w' ? 'b' : 'w';
    this.renderBar(this.topBar, top, s, me);
    this.renderBar(this.bottomBar, bottom, s, me);

    // status
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

    if (this.analysis) replace(this.actionsEl);
    else this.renderActions(me, over, expired);
    // Quick messages: between two people at the table (not spectators, not the CPU).
    this.chat.el.hidden = !me || !!party.cpu || expired || this.analysis;
    // After a finished game in which they really played, a player may recommend it.
    const played = !!me && ownMoves(s.moves.length, s.turn, me) >= MOVES_TO_RECOMMEND;
    this.recommend.show(played && s.result !== '*' && !expired && !this.analysis && !this.local);
    this.renderMoves();
    this.renderMeta();
    this.renderTurnInfo(over);
    this.renderNotify(me, over);

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

  // ---------- "Tell me when it's my turn" ----------

  /** Whether this player has made a move in this game (the prompt comes after the first). */
  private iHaveMoved(me: Color): boolean {
    const s = this.state!;
    const first: Color = this.startWhite ? 'w' : 'b';
    return s.moves.length > (me === first ? 0 : 1);
  }

  private renderNotify(me: Color | null, over: boolean): void {
    if (this.notifyState === 'working' || this.notifyState === 'done') return;
    const want =
      this.party?.mode === 'turn' &&
      !!me &&
      !over &&
      this.iHaveMoved(me) &&
      permission() === 'default' &&
      !notNow(this.code);
    // once shown, the prompt stays until answered (or the game ends), even if permission
    // was given elsewhere meanwhile: [Turn on] then only subscribes
    const keep = this.notifyState === 'asking' && !over && !notNow(this.code);
    if (!want && !keep) {
      if (this.notifyState === 'asking') {
        this.notifyState = 'none';
        replace(this.notifyEl);
      }
      return;
    }
    if (this.notifyState === 'asking') return;
    this.notifyState = 'asking';
    this.showNotifyPrompt();
  }

  private showNotifyPrompt(): void {
    const on = h('button', { type: 'button', class: 'btn primary', 'data-testid': 'notify-on' }, t('notifyOn'));
    const later = h('button', { type: 'button', class: 'btn quiet', 'data-testid': 'notify-not-now' }, t('notifyNotNow'));
    later.addEventListener('click', () => {
      setNotNow(this.code);
      this.notifyState = 'done';
      replace(this.notifyEl);
    });
    on.addEventListener('click', () => void this.turnOnNotifications());
    replace(
      this.notifyEl,
      h(
        'div',
        { class: 'notify-prompt', 'data-testid': 'notify-prompt', role: 'group', 'aria-labelledby': 'notify-ask' },
        h('div', { class: 'np-text' }, h('b', { id: 'notify-ask' }, t('notifyAsk')), h('small', null, t('notifyAskSub'))),
        h('div', { class: 'row' }, on, later),
      ),
    );
  }

  private notifyMessage(text: string, kind: 'ok' | 'fail'): void {
    replace(this.notifyEl, h('p', { class: `notify-msg ${kind}`, 'data-testid': 'notify-msg', 'data-kind': kind }, text));
    window.clearTimeout(this.notifyTimer);
    this.notifyTimer = window.setTimeout(() => replace(this.notifyEl), 12000);
  }

  private async turnOnNotifications(): Promise<void> {
    this.notifyState = 'working';
    this.notifyEl.querySelectorAll('button').forEach((b) => ((b as HTMLButtonElement).disabled = true));
    const status = this.notifyEl.querySelector('small');
    if (status) status.textContent = t('notifyWorking');
    const r = await enablePush();
    this.notifyState = 'done';
    if (r.result === 'on') this.notifyMessage(t('notifyDone'), 'ok');
    else if (r.result === 'denied') this.notifyMessage(t('notifyDenied'), 'fail');
    else this.notifyMessage(t('notifyFailed'), 'fail');
    if (r.detail) this.notifyEl.dataset.detail = r.detail;
  }

  private startTurnWhite(): boolean {
    return this.startWhite;
  }

  private renderBar(bar: PlayerBar, color: Color, s: GameState, me: Color | null): void {
    const seat = color === 'w' ? s.white : s.black;
    const p = this.playerAt(seat);
    bar.chip.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(pieceSvg('k', color === 'w' ? 'white' : 'black'))}`;
    bar.chip.alt = color === 'w' ? t('white') : t('black');
    setText(bar.name, p?.name ?? (color === 'w' ? t('white') : t('black')));
    bar.el.classList.toggle('turn', s.result === '*' && s.turn === color);
    bar.el.dataset.color = color;
    // the presence dot first, right after the name; then "you" (neither without a table:
    // a game's own page, the analysis board)
    const tags: Node[] = [];
    if (p && !p.cpu && this.code) {
      const presence = !this.online || this.party === this.stalePresence ? 'unknown' : p.online ? 'on' : 'off';
      const title = presence === 'unknown' ? t('presenceUnknown') : presence === 'on' ? t('onlineMark') : t('offlineMark');
      tags.push(h('span', { class: `dot ${presence}`, 'data-testid': 'presence', 'data-presence': presence, title }));
    }
    if (color === me && !this.analysis) tags.push(h('span', { class: 'tag' }, t('youMark')));
    replace(bar.tags, tags);
    const c = s.count;
    if (c && c.side === color) {
      replace(bar.count, `${digits(c.n)} / ${digits(c.limit)}`, h('small', null, c.kind === 'piece' ? t('pieceCount') : t('boardCount')));
      bar.count.classList.add('show');
      bar.count.title = t('countN', { n: c.n, limit: c.limit });
      bar.count.dataset.n = String(c.n);
      bar.count.dataset.limit = String(c.limit);
    } else {
      // keep its space (no layout jump when the count appears)
      replace(bar.count, '0 / 64', h('small', null, t('boardCount')));
      bar.count.classList.remove('show');
      delete bar.count.dataset.n;
      delete bar.count.dataset.limit;
    }
  }

  private reasonText(reason: string): string {
    const key = `reason_${reason}` as keyof ReturnType<typeof strings>;
    const v = strings()[key];
    return typeof v === 'string' ? v : reason;
  }

  private renderActions(me: Color | null, over: boolean, expired: boolean): void {
    const s = this.state!;
    const items: { id: string; text: string; cls: string; run: () => void }[] = [];
    if (expired) {
      // read-only: no count, claim, resign or rematch; only the way home
      const key = `${lang()}|expired`;
      if (key === this.actionsKey) return;
      this.actionsKey = key;
      replace(this.actionsEl, link('/', { class: 'btn primary', 'data-testid': 'go-home' }, t('home')), ...this.pgnLink());
      return;
    }
    // A draw offer stands until the other player answers or moves.
    const drawOffer = !over ? s.drawOffer ?? null : null;
    let drawNote = '';
    if (drawOffer)
      drawNote = drawOffer === me ? t('drawOffered', { name: this.nameOf(drawOffer === 'w' ? 'b' : 'w') }) : t('drawFrom', { name: this.nameOf(drawOffer) });
    // The offer was declined (or answered with a move): the one who offered is told, until they move.
    const declinedBy = !over && !drawOffer ? s.drawDeclined ?? null : null;
    if (declinedBy && me && declinedBy !== me) drawNote = t('drawDeclinedBy', { name: this.nameOf(declinedBy) });
    if (me && !over) {
      if (drawOffer && drawOffer !== me) {
        items.push({ id: 'draw-accept', text: t('drawAccept'), cls: 'btn primary', run: () => this.intent({ t: 'accept-draw', v: s.v }) });
        items.push({ id: 'draw-decline', text: t('drawDecline'), cls: 'btn', run: () => this.intent({ t: 'decline-draw', v: s.v }) });
      }
      if (s.canCount?.[me]) items.push({ id: 'count', text: t('startCounting'), cls: 'btn primary', run: () => this.intent({ t: 'count', v: s.v }) });
      if (s.canStop?.[me]) items.push({ id: 'stop', text: t('stopCounting'), cls: 'btn primary', run: () => this.intent({ t: 'stop', v: s.v }) });
      if (s.canClaim) items.push({ id: 'claim', text: t('claimDraw'), cls: 'btn', run: () => this.intent({ t: 'claim', v: s.v }) });
      items.push({
        id: 'resign',
        text: t('resign'),
        cls: 'btn quiet',
        run: async () => {
          const v = this.state!.v;
          if (await confirmDialog(t('resignConfirm'), t('resignYes'), 'resign-dialog')) this.intent({ t: 'resign', v: Math.max(v, this.state!.v) });
        },
      });
      // one offer per move of one's own: the button comes back after the next move
      if (!drawOffer && s.canOfferDraw?.[me] !== false) items.push({ id: 'offer-draw', text: t('offerDraw'), cls: 'btn quiet', run: () => this.intent({ t: 'offer-draw', v: s.v }) });
    }
    // A rematch is by agreement: one player offers, the other accepts or declines
    // (the CPU accepts at once); everyone at the table sees where it stands.
    const offer = over ? this.party?.rematch?.offeredBy ?? null : null;
    const declined = over ? this.party?.rematch?.declinedBy ?? null : null;
    let note = '';
    if (offer !== null) {
      note = offer === this.seat ? t('rematchOffered', { name: this.nameOfSeat(1 - offer) }) : t('rematchFrom', { name: this.nameOfSeat(offer) });
    } else if (declined !== null) {
      note = t('rematchDeclined', { name: this.nameOfSeat(declined) });
    }
    if (me && over) {
      if (offer === null) {
        items.push({ id: 'rematch', text: t('rematch'), cls: 'btn primary', run: () => this.intent({ t: 'rematch' }) });
      } else if (offer === this.seat) {
        items.push({ id: 'rematch-withdraw', text: t('rematchWithdraw'), cls: 'btn', run: () => this.intent({ t: 'decline-rematch' }) });
      } else {
        items.push({ id: 'rematch-accept', text: t('rematchAccept'), cls: 'btn primary', run: () => this.intent({ t: 'rematch' }) });
        items.push({ id: 'rematch-decline', text: t('rematchDecline'), cls: 'btn', run: () => this.intent({ t: 'decline-rematch' }) });
      }
    }
    if (drawNote) note = drawNote;
    const key = `${lang()}|${this.online}|${s.game}|${s.v}|${note}|${items.map((i) => i.id).join(',')}`;
    if (key === this.actionsKey) return;
    this.actionsKey = key;
    const els: Node[] = [];
    if (note) els.push(h('p', { class: 'rematch-note', role: 'status', 'data-testid': 'rematch-note', 'data-offered-by': String(offer ?? '') }, note));
    els.push(
      ...items.map((i) => h('button', { type: 'button', class: i.cls, 'data-testid': i.id, disabled: !this.online, onclick: i.run }, i.text)),
    );
    if (over) els.push(link('/', { class: 'btn quiet', 'data-testid': 'new-game' }, t('newGame')), ...this.pgnLink());
    replace(this.actionsEl, els);
  }

  /** The finished game's own page (not from that page itself) and its PGN file (for other programs and clubs). */
  private pgnLink(): Node[] {
    const id = this.state?.gameId;
    if (!id) return [];
    const out: Node[] = [];
    if (this.code) out.push(link(`/g/${id}`, { class: 'btn quiet', 'data-testid': 'game-link' }, t('gamePage')));
    out.push(h('a', { class: 'btn quiet', href: `/api/games/${id}.pgn`, download: `makruk-${id}.pgn`, 'data-testid': 'download-pgn' }, t('downloadPgn')));
    return out;
  }

  private intent(m: Record<string, unknown>): void {
    if (this.send(m) === null) return;
    // Buttons wait for the server's answer (the next state) before acting again.
    this.actionsEl.querySelectorAll('button').forEach((b) => ((b as HTMLButtonElement).disabled = true));
    this.actionsKey = '';
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

  private buildNav(): void {
    const mk = (id: string, label: string, icon: string, f: () => void) => {
      const b = h('button', { type: 'button', 'data-testid': `nav-${id}`, 'aria-label': label, title: label, onclick: f });
      b.innerHTML = icon; // static markup below, no user data
      return b;
    };
    const svg = (d: string) =>
      `<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="${d}"/></svg>`;
    replace(
      this.navEl,
      mk('first', t('first'), svg('M5 5h2.5v14H5zM19 5v14L9 12z'), () => this.go(0)),
      mk('prev', t('prev'), svg('M17 5v14L6 12z'), () => this.go((this.viewPly ?? this.state?.moves.length ?? 0) - 1)),
      mk('next', t('next'), svg('M7 5v14l11-7z'), () => this.go((this.viewPly ?? this.state?.moves.length ?? 0) + 1)),
      mk('last', t('last'), svg('M16.5 5H19v14h-2.5zM5 5v14l10-7z'), () => this.go(Number.MAX_SAFE_INTEGER)),
    );
  }

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
  setMarks(marks: ({ text: string; kind: string } | null)[]): void {
    this.marks = marks;
    if (this.state) this.renderMoves();
  }

  private key(e: KeyboardEvent): void {
    const tgt = e.target as HTMLElement | null;
    if (tgt && (tgt.tagName === 'INPUT' || tgt.tagName === 'TEXTAREA' || tgt.tagName === 'SELECT')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const cur = this.viewPly ?? this.state?.moves.length ?? 0;
    // In the move list (one Tab stop) the up and down arrows step too, as in a list.
    const inList = !!tgt && this.movesEl.contains(tgt);
    if (e.key === 'ArrowLeft' || (inList && e.key === 'ArrowUp')) this.go(cur - 1);
    else if (e.key === 'ArrowRight' || (inList && e.key === 'ArrowDown')) this.go(cur + 1);
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(Number.MAX_SAFE_INTEGER);
    else return;
    e.preventDefault();
  }

  private renderMoves(): void {
    const s = this.state!;
    const sans = s.san.map((san, i) => moveText(san, s.moves[i]));
    const cur = this.viewPly ?? s.moves.length;
    // One Tab stop for the whole list (the move shown, or the first one at the start):
    // the arrow keys, Home and End step through it, so that the board and the move box
    // stay a few Tabs apart however long the game.
    const stop = Math.max(1, cur);
    const hadFocus = this.movesEl.contains(document.activeElement);
    const cells: Node[] = [];
    if (sans.length === 0) cells.push(h('div', { class: 'empty' }, t('noMoves')));
    for (let i = 0; i < sans.length; i += 2) {
      cells.push(h('div', { class: 'no' }, moveNumber(i / 2 + 1)));
      for (const j of [i, i + 1]) {
        if (j >= sans.length) {
          cells.push(h('span'));
          continue;
        }
        cells.push(
          h(
            'button',
            {
              type: 'button',
              class: j + 1 === cur ? 'cur' : '',
              'data-ply': String(j + 1),
              tabindex: j + 1 === stop ? '0' : '-1',
              'aria-current': j + 1 === cur ? 'true' : undefined,
              onclick: () => this.go(j + 1),
            },
            sans[j],
            this.marks[j] ? h('span', { class: `mark ${this.marks[j]!.kind}`, 'data-testid': `mark-${j + 1}` }, this.marks[j]!.text) : null,
          ),
        );
      }
    }
    this.movesEl.setAttribute('aria-label', t('moves'));
    setText(this.movesHelp, t('movesHelp'));
    const atBottom = this.movesEl.scrollTop + this.movesEl.clientHeight >= this.movesEl.scrollHeight - 4;
    replace(this.movesEl, cells);
    if (this.viewPly === null && atBottom) this.movesEl.scrollTop = this.movesEl.scrollHeight;
    else this.movesEl.querySelector('.cur')?.scrollIntoView({ block: 'nearest' });
    // the list was redrawn under the focus: it stays on the list's one stop
    if (hadFocus) this.movesEl.querySelector<HTMLElement>('button[tabindex="0"]')?.focus({ preventScroll: true });
    const n = s.moves.length;
    const canStep = !!this.plies;
    const btns = this.navEl.querySelectorAll('button');
    (btns[0] as HTMLButtonElement).disabled = !canStep || cur === 0;
    (btns[1] as HTMLButtonElement).disabled = !canStep || cur === 0;
    (btns[2] as HTMLButtonElement).disabled = !canStep || cur >= n;
    (btns[3] as HTMLButtonElement).disabled = !canStep || cur >= n;
    setText(this.viewingEl, this.viewPly !== null ? t('viewingMove', { n: cur, total: n }) : '');
  }

  private renderMeta(): void {
    const p = this.party!;
    const s = this.state!;
    const bits = [
      s.variant === 'ouk' ? t('ouk') : t('makruk'),
      t('gameNo', { n: s.number }),
      `${t('countStart')}: ${p.rules.counting === 'declare' ? t('countDeclare') : t('countAuto')}`,
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
    this.buildNav();
    this.keys.relabel();
    this.chat.relabel();
    fillNotationPicker(this.notationEl);
    this.actionsKey = '';
    if (this.notifyState === 'asking') this.showNotifyPrompt();
    if (this.state) this.render();
  }

  destroy(): void {
    window.clearTimeout(this.notifyTimer);
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
