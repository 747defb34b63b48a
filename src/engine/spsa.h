// `makruk spsa`: tunes the search's numbers (SearchParams: reductions, pruning
// margins, history weights) by simultaneous perturbation stochastic
// approximation in self-play. Each iteration moves every tuned number by ±c at
// random, plays a game pair (one opening, both colours) between the numbers
// pushed up and the numbers pushed down, and steps every number along its
// push by how much the pushed-up side won. The steps shrink over the run
// (a_k = a / (A + k)^0.602, c_k = c / k^0.101), sized so that at the last
// iteration a number is pushed by its `step` (SearchParamField) and moves by
// r_end · step² / step per point won. What comes out is only a candidate:
// keep it when an SPRT against the defaults says so (`makruk match --sprt`).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "match.h"
#include "nnue.h"
#include "search.h"

namespace makruk::engine {

struct SpsaOptions {
  Variant variant = Variant::Makruk;
  std::vector<Opening> openings;  // in turn, one a pair; empty: the start position
  int iterations = 1000;          // game pairs
  TimeControl tc;                 // a clock (base + increment) or nodes a move
  int threads = 1;                // pairs at once
  uint64_t seed = 1;
  nnue::Networks networks;        // null: the hand-written evaluation
  std::vector<std::string> tune;  // the numbers tuned, by name; empty: all
  SearchParams start;             // where the run starts (the untuned numbers stay there)
  double r_end = 0.002;           // the last iteration's learning rate (a_end / c_end²)
  double a_ratio = 0.1;           // A = a_ratio · iterations (stability of the first steps)
  int max_plies = 400;            // a game this long is a draw
  int random_plies = 0;           // random moves after the opening, the same in both games of a pair
};

// What a run reports after each iteration: the iteration (1-based), the
// numbers now (unrounded, in the order of `tuned`) and the pairs so far.
struct SpsaProgress {
  int iteration = 0;
  std::vector<const SearchParamField*> tuned;
  std::vector<double> theta;
  int won = 0, even = 0, lost = 0;  // pairs the pushed-up side won, drew (even points), lost
  SearchParams params;              // theta rounded to the nearest, in the options' start
};

// Plays one pair: returns the first side's points minus the second's (-2 … 2).
// `pair` numbers the pair (its opening and random choices).
using PairPlayer = std::function<int(const SearchParams& plus, const SearchParams& minus, uint64_t pair)>;

// Runs the tuner over `play` (threads pairs at once) and returns the numbers
// it ends with. `progress` is called after every iteration (under a lock).
// False with *error on an unknown name in `tune`.
bool run_spsa(const SpsaOptions& o, const PairPlayer& play, SearchParams& result,
              const std::function<void(const SpsaProgress&)>& progress, std::string* error);

// A game pair in-process between two sets of numbers, each engine with its own
// table and histories, under o.tc; adjudicated as self-play's games are.
int play_spsa_pair(const SpsaOptions& o, const SearchParams& plus, const SearchParams& minus, uint64_t pair);

struct SpsaCommand {
  std::string variant = "makruk", openings, eval_file, tc, start, out;
  uint64_t nodes = 0;
  SpsaOptions options;
};
int run_spsa_command(SpsaCommand& c, std::ostream& log);

}  // namespace makruk::engine
