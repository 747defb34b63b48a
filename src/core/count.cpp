#include "count.h"

#include "position.h"

namespace makruk {

int piece_count(const Position& pos, Color c) { return popcount(pos.pieces(c)); }

int piece_count_limit(const Position& pos, Color hunter) {
  int rooks = popcount(pos.pieces(hunter, ROOK));
  int khons = popcount(pos.pieces(hunter, KHON));
  int knights = popcount(pos.pieces(hunter, KNIGHT));
  if (rooks >= 2) return 8;
  if (rooks == 1) return 16;
  if (khons >= 2) return 22;
  if (knights >= 2) return 32;
  if (khons == 1) return 44;
  return 64;
}

namespace {

Count piece_count_for(const Position& pos, Color side) {
  int total = popcount(pos.pieces());
  Count c;
  c.kind = CountKind::Piece;
  c.side = side;
  c.n = uint8_t(pos.variant() == Variant::Makruk ? total : total + 1);
  c.limit = uint8_t(piece_count_limit(pos, ~side));
  c.expired = c.n >= c.limit;  // a count that starts at or beyond its limit draws at once
  return c;
}

Count board_count_for(const Position& pos, Color side) {
  Count c;
  c.kind = CountKind::Board;
  c.side = side;
  c.n = pos.variant() == Variant::Makruk ? 0 : 1;
  c.limit = 64;
  return c;
}

bool is_bare_king(const Position& pos, Color c) { return pos.pieces(c) == pos.pieces(c, KING); }

}  // namespace

Count qualifying_count(const Position& pos, Color side) {
  const int ours = piece_count(pos, side), theirs = piece_count(pos, ~side);
  const bool pawnless = !pos.pieces(PAWN);
  if (pawnless && is_bare_king(pos, side) && theirs > ours) return piece_count_for(pos, side);
  if (ours >= theirs) return Count{};
  if (pos.variant() == Variant::Makruk ? pawnless : ours <= 3) return board_count_for(pos, side);
  return Count{};
}

namespace {

Count automatic_start(const Position& pos) {
  for (Color c : {WHITE, BLACK}) {
    Count q = qualifying_count(pos, c);
    if (q.running()) return q;
  }
  return Count{};
}

}  // namespace

Count initial_count(const Position& pos, Counting mode) {
  return mode == Counting::Automatic ? automatic_start(pos) : Count{};
}

void update_count_after_move(const Position& pos, Count& count, Color mover, Counting mode) {
  if (count.running()) {
    if (count.expired) return;
    if (mover != count.side) {
      // The hunter's one last move has been made: the count has run out.
      if (count.n >= count.limit) count.expired = true;
      if (count.kind == CountKind::Board) {
        // D3: the counting side is now a bare king with no unpromoted pawn left.
        if (!pos.pieces(PAWN) && is_bare_king(pos, count.side) && !count.expired)
          count = piece_count_for(pos, count.side);
      }
      return;
    }
    if (count.kind == CountKind::Board &&
        piece_count(pos, count.side) > piece_count(pos, ~count.side)) {
      // D2: the counting side now has more pieces; the board count stops.
      count = Count{};
      // D6: in declaration mode nothing starts by itself.
      if (mode == Counting::Automatic) count = automatic_start(pos);
      return;
    }
    if (count.n < count.limit) ++count.n;
    if (count.kind == CountKind::Board && !pos.pieces(PAWN) && is_bare_king(pos, count.side))
      count = piece_count_for(pos, count.side);  // D3, when the last pawn went by this move
    return;
  }
  if (mode == Counting::Automatic) count = automatic_start(pos);
}

}  // namespace makruk
