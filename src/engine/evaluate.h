// The static evaluation: a tapered (middlegame/endgame) hand-written score
// from the side to move's point of view, aware of the endgame count.
#pragma once

#include "core/position.h"

namespace makruk::engine {

using Value = int;
constexpr Value VALUE_ZERO = 0;
constexpr Value VALUE_DRAW = 0;
constexpr Value VALUE_MATE = 32000;
constexpr Value VALUE_INFINITE = 32001;
constexpr Value VALUE_NONE = 32002;
constexpr int MAX_PLY = 120;
constexpr Value VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY;

constexpr Value mate_in(int ply) { return VALUE_MATE - ply; }
constexpr Value mated_in(int ply) { return -VALUE_MATE + ply; }

// Piece values (middlegame, endgame), pawn-relative. A met and a promoted pawn
// move alike and are worth alike.
struct Score {
  int mg = 0, eg = 0;
  constexpr Score operator+(Score o) const { return {mg + o.mg, eg + o.eg}; }
  constexpr Score operator-(Score o) const { return {mg - o.mg, eg - o.eg}; }
  constexpr Score operator*(int k) const { return {mg * k, eg * k}; }
  Score& operator+=(Score o) { return *this = *this + o; }
  Score& operator-=(Score o) { return *this = *this - o; }
};

extern Score PIECE_VALUE[PIECE_TYPE_NB];
// Single-number values for move ordering and exchange evaluation.
extern int SEE_VALUE[PIECE_TYPE_NB];

Value evaluate(const Position& pos);

}  // namespace makruk::engine
