// The search: iterative deepening over a principal-variation alpha-beta with
// a shared transposition table, run by one or more threads (Lazy SMP).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/position.h"
#include "evaluate.h"
#include "nnue.h"
#include "tt.h"

namespace makruk::engine {

struct Limits {
  int depth = 0;          // 0: no depth limit
  uint64_t nodes = 0;     // 0: no node limit
  int64_t movetime = 0;   // ms per move, 0: none
  int64_t time[COLOR_NB] = {0, 0};
  int64_t inc[COLOR_NB] = {0, 0};
  int movestogo = 0;
  int mate = 0;           // search for a mate in this many moves
  bool infinite = false;  // until stop()
  bool ponder = false;    // no time limit until ponderhit()
  int multipv = 1;        // the best this many moves, each with its line
  bool use_time() const { return time[WHITE] || time[BLACK] || movetime; }
};

struct Info {
  int depth = 0, seldepth = 0;
  int multipv = 1;  // which line: 1 for the best

  Value score = 0;
  uint64_t nodes = 0;
  int64_t ms = 0;
  int hashfull = 0;
  std::vector<Move> pv;
};

// One of the best moves at the root, with its score and line (multi-PV).
struct RootLine {
  Value score = 0;
  std::vector<Move> pv;
};

struct SearchResult {
  Move best;    // null only when the side to move has no legal move
  Move ponder;  // the expected reply, when known
  Value score = 0;
  int depth = 0;
  uint64_t nodes = 0;
  std::vector<Move> pv;
  std::vector<RootLine> lines;  // best first; the first is score and pv (Limits::multipv of them)
};

// A move's share of the clock, in ms: past 6/10 of `optimum` no new iteration
// is started, at `maximum` the search stops. `time` and `inc` are the mover's
// clock and increment, `overhead` what a reply costs beside the search
// (UCI's Move Overhead). With an increment, two increments (at most half the
// clock) are a reserve the share never reaches into: a search that runs over
// or a slow reply still leaves a long game's next moves their time.
struct TimeShare {
  int64_t optimum = 0, maximum = 0;
};
TimeShare time_share(int64_t time, int64_t inc, int movestogo, int64_t overhead);

// The search's tunable numbers: reductions, pruning margins, history weights.
// `makruk spsa` tunes them in self-play; UCI's SearchParams option and
// `makruk match --option1 SearchParams=…` set them ("name=value …").
struct SearchParams {
  int rfp_depth = 6, rfp_margin = 100;                  // reverse futility: depth ≤, margin a ply
  int nmp_depth = 3, nmp_base = 3, nmp_depth_div = 4;   // null move: from depth; R = base + depth / div
  int nmp_eval_div = 200;                               //   + (eval − beta) / this, at most 2
  int see_depth = 6, see_margin = 120;                  // captures losing more than margin × depth skipped
  int lmp_depth = 5, lmp_base = 3;                      // late quiet moves skipped past base + d² / 2
  int fut_depth = 4, fut_base = 140, fut_margin = 120;  // futility: eval + base + margin × depth ≤ alpha
  int lmr_base = 50, lmr_div = 200;                     // reduction: base / 100 + ln d · ln m · 100 / div
  int lmr_history = 8000;                               // a reduction less per this much history
  int history_max = 400;                                // history bonus: min(depth², this)
  int delta_margin = 200;                               // quiescence delta pruning
  int se_depth = 0, se_margin = 2;                      // singular extensions: from depth (0: none),
                                                        //   the table's value − margin × depth
  int check_ext_depth = 0;                              // a checking move searched a ply deeper from this depth
  int razor_depth = 0, razor_margin = 250;              // razoring: depth ≤ (0: none), eval + margin × d² < alpha
  int fut_lmr = 0;                                      // 1: futility judged at the depth late-move reduction leaves
  int lmr_checks = 0;                                   // 1: checking moves and evasions reduced as others are
  int aspiration = 30;                                  // the first aspiration window's half-width
  int check_see = 0;                                    // 1: a check that loses material by SEE is not extended
  int qs_checks = 0;                                    // 1: quiescence's first ply also tries quiet checks
  int tt_eval = 0;                                      // 1: the table's bound, where tighter, stands for the static evaluation
  bool operator==(const SearchParams&) const = default;
};

// One tunable number: its name, where it is, its bounds, and the step `makruk
// spsa` perturbs it by at the end of a run (c_end).
struct SearchParamField {
  const char* name;
  int SearchParams::*field;
  int min, max;
  double step;
};
std::span<const SearchParamField> search_param_fields();
// "rfp_depth=6 rfp_margin=100 …", every field.
std::string format_search_params(const SearchParams& p);
// Reads "name=value" pairs (separated by spaces or commas) over `p`; fields not
// named keep their values. False, with `p` unchanged and *error saying why,
// on an unknown name, a value that is not a whole number, or one out of bounds.
bool parse_search_params(const std::string& text, SearchParams& p, std::string* error);

// Static exchange evaluation of a capture (or promotion), in SEE_VALUE units.
int see(const Position& pos, Move m);

// Whether a quiet move (no capture, no promotion) checks the other king, by
// the moved piece from its new square or by a rook it uncovers; without making it.
bool quiet_gives_check(const Position& pos, Move m);

// "cp 35" or "mate -3", as UCI writes scores.
std::string score_to_uci(Value v);

struct Histories;

class Engine {
 public:
  // `nets`: as set_networks.
  explicit Engine(nnue::Networks nets = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void set_hash(size_t megabytes) { tt_.resize(megabytes); }
  void set_threads(int n) { threads_ = n < 1 ? 1 : n; }
  void set_move_overhead(int ms) { move_overhead_ = ms; }
  void set_search_params(const SearchParams& p);
  const SearchParams& search_params() const { return params_; }
  // Clears the transposition table and the move-ordering histories (which are
  // otherwise kept from one search to the next).
  void new_game();
  // The learned evaluation, by variant, for positions with pawns on the board
  // and no count running (the hand-written one keeps the rest; a residual
  // network's output is added to it); null: the hand-written evaluation.
  // Starts afresh (new_game): the table's entries hold evaluations.
  void set_networks(nnue::Networks nets) {
    nets_ = std::move(nets);
    new_game();
  }
  // One network for every variant it was trained on.
  void set_network(const std::shared_ptr<const nnue::Network>& net) { set_networks(nnue::Networks::all(net)); }
  const nnue::Network* network(Variant v) const { return nets_.of(v); }

  // Searches `root` (a position with its game history, for repetitions) and
  // returns the best move. Blocks until done; stop() may be called from another
  // thread. `on_info` is called after each completed iteration, once per line.
  SearchResult search(const Position& root, const Limits& limits,
                      const std::function<void(const Info&)>& on_info = {});
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  void ponderhit() { ponder_.store(false, std::memory_order_relaxed); }

 private:
  friend struct Worker;
  TranspositionTable tt_;
  std::vector<std::unique_ptr<Histories>> histories_;  // one per search thread
  nnue::Networks nets_;
  int threads_ = 1;
  int move_overhead_ = 30;
  SearchParams params_;
  int reductions_[64][64] = {};  // late-move reductions by depth and move number, from params_
  std::atomic<bool> stop_{false};
  std::atomic<bool> ponder_{false};
};

}  // namespace makruk::engine
