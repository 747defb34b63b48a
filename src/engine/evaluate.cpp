#include "evaluate.h"

#include <algorithm>
#include <cstdlib>

#include "core/game.h"

namespace makruk::engine {

// Indexed by PieceType: -, pawn, met, khon, knight, rook, king, promoted pawn.
Score PIECE_VALUE[PIECE_TYPE_NB] = {{0, 0},     {100, 140},  {320, 350}, {520, 500},
                                    {620, 660}, {1060, 1150}, {0, 0},     {320, 350}};
int SEE_VALUE[PIECE_TYPE_NB] = {0, 100, 330, 510, 640, 1100, 20000, 330};

namespace {

// Game phase: 1.0 with all pieces, 0 with none but pawns and kings.
constexpr int PHASE_WEIGHT[PIECE_TYPE_NB] = {0, 0, 1, 2, 2, 4, 0, 1};
constexpr int PHASE_MAX = 2 * (1 + 2 * 2 + 2 * 2 + 2 * 4);

int center_distance(Square s) {
  int f = file_of(s), r = rank_of(s);
  return std::max(std::abs(2 * f - 7), std::abs(2 * r - 7)) / 2;  // 0 (centre) … 3 (edge)
}
int distance(Square a, Square b) {
  return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

// Piece-square terms from White's point of view (rank counted from the owner's side).
Score psq(PieceType pt, Color c, Square s) {
  int rr = relative_rank(c, s), cd = center_distance(s);
  int fileCenter = 3 - std::min(file_of(s), 7 - file_of(s));  // 0 edge … 3 centre files
  switch (pt) {
    case PAWN: {
      static constexpr int adv_mg[8] = {0, 0, 0, 6, 18, 0, 0, 0};
      static constexpr int adv_eg[8] = {0, 0, 0, 12, 30, 0, 0, 0};
      return {adv_mg[rr] + 3 * fileCenter, adv_eg[rr]};
    }
    case KNIGHT: return {18 - 8 * cd, 14 - 6 * cd};
    case KHON: return {12 - 5 * cd + 4 * std::min(rr, 4), 8 - 4 * cd};
    case MET:
    case PROMOTED: return {8 - 4 * cd + 3 * std::min(rr, 4), 8 - 4 * cd};
    case ROOK: return {2 * fileCenter, 0};
    case KING: return {rr <= 1 ? 10 : -8 * (rr - 1), 12 - 8 * cd};
    default: return {};
  }
}

Score evaluate_side(const Position& pos, Color us, int& phase) {
  const Color them = ~us;
  Score s;
  const Bitboard occupied = pos.pieces();
  const Bitboard ours = pos.pieces(us);
  const Bitboard theirPawns = pos.pieces(them, PAWN);
  Bitboard pawnAttacks = 0;
  for (Bitboard b = theirPawns; b;) pawnAttacks |= pawn_attacks(them, pop_lsb(b));
  const Bitboard safe = ~ours & ~pawnAttacks;
  const Square theirKing = pos.king_square(them);
  const Bitboard kingZone = king_attacks(theirKing) | square_bb(theirKing);
  int attackUnits = 0, attackers = 0;

  for (Bitboard b = ours; b;) {
    Square sq = pop_lsb(b);
    PieceType pt = type_of(pos.piece_on(sq));
    s += PIECE_VALUE[pt] + psq(pt, us, sq);
    phase += PHASE_WEIGHT[pt];
    Bitboard att = 0;
    switch (pt) {
      case KNIGHT:
        att = knight_attacks(sq);
        s += Score{4, 4} * (popcount(att & safe) - 4);
        if (att & kingZone) attackUnits += 2, ++attackers;
        break;
      case ROOK: {
        att = rook_attacks(sq, occupied);
        s += Score{3, 5} * (popcount(att & safe) - 6);
        Bitboard file = file_bb(file_of(sq));
        if (!(file & pos.pieces(PAWN))) s += Score{24, 10};
        else if (!(file & pos.pieces(us, PAWN))) s += Score{12, 6};
        if (att & kingZone) attackUnits += 3, ++attackers;
        break;
      }
      case KHON:
        att = khon_attacks(us, sq);
        s += Score{3, 2} * (popcount(att & safe) - 2);
        if (att & kingZone) attackUnits += 2, ++attackers;
        break;
      case MET:
      case PROMOTED:
        att = met_attacks(sq);
        s += Score{2, 2} * (popcount(att & safe) - 2);
        if (att & kingZone) attackUnits += 1, ++attackers;
        break;
      default: break;
    }
  }
  if (attackers >= 2) s += Score{attackUnits * attackUnits * 2, 0};

  // Pawn structure: chains hold, doubled and isolated pawns are weak.
  const Bitboard pawns = pos.pieces(us, PAWN);
  for (Bitboard b = pawns; b;) {
    Square sq = pop_lsb(b);
    int f = file_of(sq);
    Bitboard adjacent = (f > 0 ? file_bb(f - 1) : 0) | (f < 7 ? file_bb(f + 1) : 0);
    if (!(pawns & adjacent)) s -= Score{8, 10};
    if (more_than_one(pawns & file_bb(f))) s -= Score{6, 10};
    if (pawn_attacks(them, sq) & pawns) s += Score{6, 4};  // defended by a pawn
  }
  return s;
}

// Mop-up: with the defender reduced to a bare king, drive it to the edge and
// bring the kings together, so that mates within the count are found.
Value mop_up(const Position& pos, Color strong) {
  Square weakKing = pos.king_square(~strong), strongKing = pos.king_square(strong);
  return 20 * center_distance(weakKing) + 6 * (7 - distance(weakKing, strongKing));
}

}  // namespace

Value evaluate(const Position& pos) {
  int phase = 0;
  Score s = evaluate_side(pos, WHITE, phase) - evaluate_side(pos, BLACK, phase);
  phase = std::min(phase, PHASE_MAX);
  int v = (s.mg * phase + s.eg * (PHASE_MAX - phase)) / PHASE_MAX;

  const Color strong = v > 0 ? WHITE : BLACK;
  const Color weak = ~strong;
  if (!pos.pieces(PAWN)) {
    if (pos.pieces(weak) == pos.pieces(weak, KING)) {
      int m = mop_up(pos, strong);
      v += strong == WHITE ? m : -m;
    }
    // Material that can never mate is worth little.
    if (!can_checkmate(pos, strong)) v /= 8;
    // The count: a pawnless advantage fades as the hunted side's moves run out.
    const Count& c = pos.count();
    if (c.running() && c.side == weak) {
      int remaining = std::max(0, c.limit - c.n);
      if (remaining < 16) v = v * (remaining + 2) / 18;
    }
  }
  v += pos.side_to_move() == WHITE ? 10 : -10;  // tempo
  return pos.side_to_move() == WHITE ? v : -v;
}

}  // namespace makruk::engine
