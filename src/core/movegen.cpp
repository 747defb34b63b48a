#include "movegen.h"

namespace makruk {

namespace {

template <bool CountOnly>
struct Sink {
  MoveList* list;
  int count = 0;

  void add(Square from, Bitboard dests) {
    if constexpr (CountOnly) {
      count += popcount(dests);
    } else {
      while (dests) list->push(Move(from, pop_lsb(dests)));
    }
  }
  void add_pawn(Square from, Bitboard dests, Bitboard promotionZone) {
    if constexpr (CountOnly) {
      count += popcount(dests);
    } else {
      while (dests) {
        Square to = pop_lsb(dests);
        list->push(Move(from, to, (square_bb(to) & promotionZone) ? Move::PROMOTION : 0));
      }
    }
  }
};

template <Color Us, bool CountOnly>
int generate(const Position& pos, MoveList* list) {
  constexpr Color Them = ~Us;
  Sink<CountOnly> sink{list};
  const Bitboard occupied = pos.pieces(), ours = pos.pieces(Us), theirs = pos.pieces(Them);
  const Square ksq = pos.king_square(Us);
  const Bitboard checkers = pos.checkers();

  const Bitboard danger = pos.attacks_by(Them, occupied ^ square_bb(ksq));
  sink.add(ksq, king_attacks(ksq) & ~ours & ~danger);
  if (more_than_one(checkers)) return sink.count;

  const Bitboard target = checkers ? checkers | between_bb(ksq, lsb(checkers)) : ~ours;
  const Bitboard pinned = pos.pinned(Us);

  // Knights and met-movers never stay on a rank or file, so a pinned one is stuck.
  for (Bitboard b = pos.pieces(Us, KNIGHT) & ~pinned; b;) {
    Square s = pop_lsb(b);
    sink.add(s, knight_attacks(s) & target);
  }
  for (Bitboard b = pos.met_movers(Us) & ~pinned; b;) {
    Square s = pop_lsb(b);
    sink.add(s, met_attacks(s) & target);
  }
  for (Bitboard b = pos.pieces(Us, KHON); b;) {
    Square s = pop_lsb(b);
    Bitboard d = khon_attacks(Us, s) & target;
    if (pinned & square_bb(s)) d &= line_bb(ksq, s);
    sink.add(s, d);
  }
  for (Bitboard b = pos.pieces(Us, ROOK); b;) {
    Square s = pop_lsb(b);
    Bitboard d = rook_attacks(s, occupied) & target;
    if (pinned & square_bb(s)) d &= line_bb(ksq, s);
    sink.add(s, d);
  }

  constexpr Bitboard promotionZone = Us == WHITE ? rank_bb(5) : rank_bb(2);
  const Bitboard pawns = pos.pieces(Us, PAWN);
  if (pawns) {
    // Unpinned pawns in bulk; pinned ones one by one.
    Bitboard free = pawns & ~pinned;
    Bitboard pushes = shift_up<Us>(free) & ~occupied & target;
    if constexpr (CountOnly) {
      sink.count += popcount(pushes);
    } else {
      while (pushes) {
        Square to = pop_lsb(pushes);
        sink.add_pawn(to - pawn_push(Us), square_bb(to), promotionZone);
      }
    }
    for (Bitboard b = free; b;) {
      Square s = pop_lsb(b);
      sink.add_pawn(s, pawn_attacks(Us, s) & theirs & target, promotionZone);
    }
    for (Bitboard b = pawns & pinned; b;) {
      Square s = pop_lsb(b);
      Bitboard d = ((shift_up<Us>(square_bb(s)) & ~occupied) | (pawn_attacks(Us, s) & theirs)) &
                   target & line_bb(ksq, s);
      sink.add_pawn(s, d, promotionZone);
    }
  }

  // Ouk Chatrang first moves (docs/rules.md §3).
  if (uint8_t rights = pos.rights()) {
    constexpr uint8_t kingRight = Us == WHITE ? WHITE_KING_RIGHT : BLACK_KING_RIGHT;
    constexpr uint8_t neangRight = Us == WHITE ? WHITE_NEANG_RIGHT : BLACK_NEANG_RIGHT;
    if ((rights & kingRight) && !checkers) {
      constexpr int nextRank = Us == WHITE ? 1 : 6;
      sink.add(ksq, knight_attacks(ksq) & rank_bb(nextRank) & ~occupied & ~danger);
    }
    if (rights & neangRight) {
      constexpr Square from = Us == WHITE ? WHITE_NEANG_START : BLACK_NEANG_START;
      constexpr Square to = from + 2 * pawn_push(Us);
      Bitboard d = square_bb(to) & ~occupied & target;
      if (pinned & square_bb(from)) d &= line_bb(ksq, from);
      sink.add(from, d);
    }
  }
  return sink.count;
}

}  // namespace

void generate_legal(const Position& pos, MoveList& list) {
  list.size = 0;
  if (pos.side_to_move() == WHITE)
    generate<WHITE, false>(pos, &list);
  else
    generate<BLACK, false>(pos, &list);
}

int count_legal(const Position& pos) {
  return pos.side_to_move() == WHITE ? generate<WHITE, true>(pos, nullptr)
                                     : generate<BLACK, true>(pos, nullptr);
}

bool is_legal(const Position& pos, Move m) {
  MoveList list;
  generate_legal(pos, list);
  return list.contains(m);
}

}  // namespace makruk
