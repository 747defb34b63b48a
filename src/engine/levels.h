// Playing levels 1–8 for the platform's CPU opponent. Level 8 is full
// strength; lower levels see less (depth and node limits) and sometimes choose
// a plausible second-best move (a temperature over the root moves' scores),
// but never a move that walks into mate in one when another move avoids it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "search.h"

namespace makruk::engine {

constexpr int MIN_LEVEL = 1, MAX_LEVEL = 8;

struct LevelSettings {
  int depth;          // 0: no limit
  uint64_t nodes;     // 0: no limit
  int temperature;    // centipawns; 0 plays the best move
  int max_loss;       // never choose a move this much worse than the best
};

LevelSettings level_settings(int level);

// Below level 8, pawnless endings are searched at least this deep (or this many
// nodes) and played without temperature.
constexpr int ENDGAME_MIN_DEPTH = 8;
constexpr uint64_t ENDGAME_MIN_NODES = 100000;

// Approximate strength of each level, for UCI_Elo.
int level_from_elo(int elo);
constexpr int MIN_ELO = 600, MAX_ELO = 2400;

// Chooses a move at `level` within `limits` (its time limits still apply).
// `rng` makes the choice reproducible in tests.
SearchResult play_at_level(Engine& engine, const Position& pos, int level, const Limits& limits,
                           std::mt19937_64& rng);

// What the CPU player at `level` does at `root`, as table actions in order.
// With `answer_offer`, the side not offering (`cpu`) first accepts or declines
// the draw offered to it (accepts when clearly worse, -50 or less for it, or
// no better than level, 50, once a count runs); then, in declaration mode, the
// side to move starts a count it qualifies for or stops its own when it can
// win; then its move by play_at_level within `max_ms` (1 s, 1.5 s at level 8).
// The server's CPU players and the browser's offline ones both use it.
std::vector<std::string> level_actions(Engine& engine, const Position& root, int level, int max_ms, bool answer_offer,
                                       Color cpu, std::mt19937_64& rng);

// Whether the opponent can checkmate at once after `m`.
bool allows_mate_in_one(const Position& pos, Move m);

}  // namespace makruk::engine
