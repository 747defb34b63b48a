// The buttons under the status: a draw offered and answered, the count started and
// stopped, a draw claimed, resigning, a rematch by agreement, and once a game is over
// its own page and its PGN; a read-only table's way home. Each sends an intent and
// waits for the server's next state; the server decides.
import type { Color, GameState, Party } from '../shared/api';
import { h, replace } from '../shared/dom';
import { lang, t } from '../shared/i18n';
import { confirmDialog, link } from '../shared/ui';

type Send = (m: Record<string, unknown>) => string | null;

/** What the buttons are drawn from. */
export interface ActionsFor {
  state: GameState;
  party: Party | null;
  seat: number | null;
  me: Color | null;
  over: boolean;
  expired: boolean;
  online: boolean;
  code: string; // the table's ("" on a game's own page)
  nameOf: (color: Color) => string;
  nameOfSeat: (seat: number) => string;
}

export class GameActions {
  readonly el: HTMLElement = h('div', { class: 'actions', 'data-testid': 'actions' });
  private drawn = ''; // what is shown now, so that nothing is redrawn for nothing
  private latest: GameState | null = null;

  constructor(private send: Send) {}

  /** Drawn again on the next render (the language changed). */
  forget(): void {
    this.drawn = '';
  }

  clear(): void {
    replace(this.el);
  }

  render(a: ActionsFor): void {
    const s = a.state;
    this.latest = s;
    const { me, over } = a;
    const items: { id: string; text: string; cls: string; run: () => void }[] = [];
    if (a.expired) {
      // read-only: no count, claim, resign or rematch; only the way home
      const key = `${lang()}|expired`;
      if (key === this.drawn) return;
      this.drawn = key;
      replace(this.el, link('/', { class: 'btn primary', 'data-testid': 'go-home' }, t('home')), ...this.pgnLinks(a));
      return;
    }
    // A draw offer stands until the other player answers or moves.
    const drawOffer = !over ? s.drawOffer ?? null : null;
    let drawNote = '';
    if (drawOffer)
      drawNote = drawOffer === me ? t('drawOffered', { name: a.nameOf(drawOffer === 'w' ? 'b' : 'w') }) : t('drawFrom', { name: a.nameOf(drawOffer) });
    // The offer was declined (or answered with a move): the one who offered is told, until they move.
    const declinedBy = !over && !drawOffer ? s.drawDeclined ?? null : null;
    if (declinedBy && me && declinedBy !== me) drawNote = t('drawDeclinedBy', { name: a.nameOf(declinedBy) });
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
          const v = this.latest!.v;
          if (await confirmDialog(t('resignConfirm'), t('resignYes'), 'resign-dialog')) this.intent({ t: 'resign', v: Math.max(v, this.latest!.v) });
        },
      });
      // one offer per move of one's own: the button comes back after the next move
      if (!drawOffer && s.canOfferDraw?.[me] !== false) items.push({ id: 'offer-draw', text: t('offerDraw'), cls: 'btn quiet', run: () => this.intent({ t: 'offer-draw', v: s.v }) });
    }
    // A rematch is by agreement: one player offers, the other accepts or declines
    // (the CPU accepts at once); everyone at the table sees where it stands.
    const offer = over ? a.party?.rematch?.offeredBy ?? null : null;
    const declined = over ? a.party?.rematch?.declinedBy ?? null : null;
    let note = '';
    if (offer !== null) {
      note = offer === a.seat ? t('rematchOffered', { name: a.nameOfSeat(1 - offer) }) : t('rematchFrom', { name: a.nameOfSeat(offer) });
    } else if (declined !== null) {
      note = t('rematchDeclined', { name: a.nameOfSeat(declined) });
    }
    // A tournament's game has no rematch: the tournament pairs the next round.
    const tournament = a.party?.tournament ?? null;
    if (me && over && !tournament) {
      if (offer === null) {
        items.push({ id: 'rematch', text: t('rematch'), cls: 'btn primary', run: () => this.intent({ t: 'rematch' }) });
      } else if (offer === a.seat) {
        items.push({ id: 'rematch-withdraw', text: t('rematchWithdraw'), cls: 'btn', run: () => this.intent({ t: 'decline-rematch' }) });
      } else {
        items.push({ id: 'rematch-accept', text: t('rematchAccept'), cls: 'btn primary', run: () => this.intent({ t: 'rematch' }) });
        items.push({ id: 'rematch-decline', text: t('rematchDecline'), cls: 'btn', run: () => this.intent({ t: 'decline-rematch' }) });
      }
    }
    if (drawNote) note = drawNote;
    const key = `${lang()}|${a.online}|${s.game}|${s.v}|${note}|${items.map((i) => i.id).join(',')}`;
    if (key === this.drawn) return;
    this.drawn = key;
    const els: Node[] = [];
    if (note) els.push(h('p', { class: 'rematch-note', role: 'status', 'data-testid': 'rematch-note', 'data-offered-by': String(offer ?? '') }, note));
    els.push(
      ...items.map((i) => h('button', { type: 'button', class: i.cls, 'data-testid': i.id, disabled: !a.online, onclick: i.run }, i.text)),
    );
    if (over && tournament)
      els.push(link(`/t/${tournament.code}`, { class: 'btn primary', 'data-testid': 'back-to-tournament' }, t('backToTournament')));
    if (over) els.push(link('/', { class: 'btn quiet', 'data-testid': 'new-game' }, t('newGame')), ...this.pgnLinks(a));
    replace(this.el, els);
  }

  /** The finished game's own page (not from that page itself) and its PGN file (for other programs and clubs). */
  private pgnLinks(a: ActionsFor): Node[] {
    const id = a.state.gameId;
    if (!id) return [];
    const out: Node[] = [];
    if (a.code) out.push(link(`/g/${id}`, { class: 'btn quiet', 'data-testid': 'game-link' }, t('gamePage')));
    out.push(h('a', { class: 'btn quiet', href: `/api/games/${id}.pgn`, download: `makruk-${id}.pgn`, 'data-testid': 'download-pgn' }, t('downloadPgn')));
    return out;
  }

  private intent(m: Record<string, unknown>): void {
    if (this.send(m) === null) return;
    // Buttons wait for the server's answer (the next state) before acting again.
    this.el.querySelectorAll('button').forEach((b) => ((b as HTMLButtonElement).disabled = true));
    this.drawn = '';
  }
}
