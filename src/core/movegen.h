// Legal move generation. Pins come only from rooks (the one slider), so a
// pinned piece may move only along the pinning rank or file.
#pragma once

#include "position.h"

namespace makruk {

// All legal moves of the side to move (the game's end is not considered).
void generate_legal(const Position& pos, MoveList& list);

// The number of legal moves, without listing them (perft's bulk counting).
int count_legal(const Position& pos);

// Whether a move (e.g. from a hash table or a parser) is legal here.
bool is_legal(const Position& pos, Move m);

}  // namespace makruk
