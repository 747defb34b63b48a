// The endgame count (docs/rules.md §5): which side counts, from what value, to what
// limit, and how a move changes it.
#pragma once

#include <cstdint>

#include "types.h"

namespace makruk {

class Position;

enum class CountKind : uint8_t { None, Board, Piece };
enum class Counting : uint8_t { Automatic, Declaration };

struct Count {
  CountKind kind = CountKind::None;
  Color side = WHITE;  // the counting (hunted) side
  uint8_t n = 0;
  uint8_t limit = 0;
  // Set once the count has run out: it started at or beyond its limit, or the
  // hunting side has made its one last move. Unless that move mated, it is a draw.
  bool expired = false;

  bool running() const { return kind != CountKind::None; }
  bool operator==(const Count&) const = default;
};

// Pieces of one side, king and pawns included.
int piece_count(const Position& pos, Color c);

// The count `side` would start now, or a count of kind None when it does not
// qualify (docs/rules.md §5: board count, or piece count for a bare king).
Count qualifying_count(const Position& pos, Color side);

// The piece-count limit from the hunting side's material, smallest that applies.
int piece_count_limit(const Position& pos, Color hunter);

// Updates `count` after `mover` has moved, giving position `pos`. Applies
// increments, the hunter's last move, D2 stops, D3 switches and, in automatic
// mode, starts. `count` is the state before the move.
void update_count_after_move(const Position& pos, Count& count, Color mover, Counting mode);

// The count a position starts with when loaded (automatic mode only).
Count initial_count(const Position& pos, Counting mode);

}  // namespace makruk
