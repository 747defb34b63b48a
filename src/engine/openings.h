// Balanced opening lines for engine matches, made with the engine: short
// random move sequences from the start position whose evaluation stays near
// equality.
#pragma once

#include <iosfwd>
#include <string>

#include "core/types.h"

namespace makruk::engine {

struct OpeningsOptions {
  Variant variant = Variant::Makruk;
  int count = 50;
  int plies = 8;        // random plies from the start position
  int depth = 10;       // search depth of the balance check
  int max_score = 40;   // centipawns either way
  uint64_t seed = 1;
};

// Writes one "startpos moves …" line per opening. Returns how many were written.
int make_openings(const OpeningsOptions& o, std::ostream& out);

}  // namespace makruk::engine
