// Opening lines for engine matches, made with the engine: short random move
// sequences from the start position whose evaluation stays near equality
// (balanced), or leaves the side to move ahead by a margin (unbalanced: played
// with both colours, such openings decide games, and a test sees more).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "core/types.h"

namespace makruk::engine {

struct OpeningsOptions {
  Variant variant = Variant::Makruk;
  int count = 50;
  int plies = 8;        // random plies from the start position
  int depth = 10;       // search depth of the balance check
  int max_score = 40;   // centipawns either way (balanced), or the most the side to move may lead by
  std::optional<int> min_score;  // unbalanced: the side to move leads by at least this
  uint64_t seed = 1;
};

// Writes one "startpos moves …" line per opening. Returns how many were written.
int make_openings(const OpeningsOptions& o, std::ostream& out);

}  // namespace makruk::engine
