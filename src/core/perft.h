// Perft: the number of leaf nodes of the legal move tree, the standard check
// of a move generator. The last ply is bulk-counted.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "position.h"

namespace makruk {

uint64_t perft(Position& pos, int depth);
// One entry per legal root move, in generation order.
std::vector<std::pair<Move, uint64_t>> perft_divide(Position& pos, int depth);

}  // namespace makruk
