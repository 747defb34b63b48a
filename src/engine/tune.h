// Tuning the evaluation from game data: `makruk selfplay` plays fast games
// engine against engine and writes quiet positions with the game's result;
// `makruk tune` fits the evaluation's weights to those results (Texel's
// method: the mean squared error between the result and a sigmoid of the
// evaluation) and writes the table as C++ source (src/engine/eval_params.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/position.h"
#include "evaluate.h"
#include "match.h"
#include "nnue.h"

namespace makruk::engine {

// ---- Self-play data ----

struct SelfplayOptions {
  Variant variant = Variant::Makruk;
  std::vector<Opening> openings;  // played in turn; empty: the start position
  int games = 100;
  uint64_t nodes = 3000;    // per move, varied by ±50% at random
  int random_plies = 2;     // random legal moves after the opening
  int skip_plies = 10;      // no sample before this game ply
  int max_plies = 400;      // a game this long is a draw
  int adjudicate = 1000;    // |score| at least this for 8 plies in a row wins
  int draw_after = 120;     // from this game ply on, |score| at most draw_score
  int draw_plies = 40;      // for this many plies in a row is a draw (0: never)
  int draw_score = 10;
  int threads = 1;
  uint64_t seed = 1;
  nnue::Networks networks;  // null: the hand-written evaluation
};

// One data line: "FEN;RESULT[;SCORE]", RESULT 1, 0.5 or 0 from White's side,
// SCORE the self-play search's score of the position in centipawns, White's view.
constexpr int NO_SCORE = 1 << 30;
std::string sample_line(const std::string& fen, double result, int score = NO_SCORE);
bool parse_sample_line(const std::string& line, std::string& fen, double& result,
                       int* score = nullptr);
// Reads data lines ('#' comments and blank lines skipped) and calls add(position,
// result, score) for each position with pawns (pawnless ones follow the count,
// not the evaluation) until full() says so. False, with the line's number in
// *error, on a bad line.
bool read_sample_positions(std::istream& in, Variant variant, const std::function<bool()>& full,
                           const std::function<void(const Position&, double, int)>& add, std::string* error);

// Whether a position is quiet enough to be labelled with a static evaluation:
// not in check, not just after a capture, no winning capture or promotion.
bool is_quiet(const Position& pos);

// Ends a game on its search scores (White's view, one per searched move): a
// win once |score| stays at least `adjudicate` for 8 plies in a row, a draw
// from ply `draw_after` on once it stays within ±draw_score for `draw_plies`.
struct Adjudication {
  int adjudicate = 1000, draw_after = 120, draw_plies = 40, draw_score = 10;
  int streak = 0, streak_sign = 0, quiet_streak = 0;
  // After a move searched at game ply `ply`: 1 White wins, 0 Black wins,
  // 0.5 a draw, -1 play on.
  double update(int white_score, int ply);
};

// Plays the games and writes the sampled positions (one line each; a position
// at most once per game; none with a mate score). Progress
// goes to `log` when given. Returns the number of positions written.
uint64_t run_selfplay(const SelfplayOptions& o, std::ostream& out, std::ostream* log);

// ---- Texel tuning ----

// A position reduced to its evaluation features (see evaluate.h): entries
// [begin, begin + size) of TuneData::features.
struct TuneFeature {
  uint16_t index;  // parameter
  int16_t count;   // White minus Black
};
struct TuneEntry {
  uint32_t begin = 0;
  uint16_t size = 0;
  uint8_t phase = 0;  // 0 … PHASE_MAX
  int8_t stm = 1;     // +1 White to move, -1 Black
  float result = 0.5f;  // the game's, White's view
  float score = 0;      // the self-play search's, when has_score
  bool has_score = false;
  float target = 0.5f;  // what the sigmoid of the evaluation is fitted to (set_targets)
  uint8_t eg_scale[2] = {64, 64};  // few_pawns_scale with White, with Black ahead
};

struct TuneData {
  std::vector<TuneFeature> features;
  std::vector<TuneEntry> entries;
};

// Reads "FEN;RESULT" lines; skips pawnless positions (their scores follow the
// count, not the weights). False with *error on a bad line.
bool load_tune_data(std::istream& in, Variant variant, size_t max_positions, TuneData& data,
                    std::string* error);

// Each entry's target: lambda * result + (1 - lambda) * sigmoid(score * k / 400)
// where the data has a score, the result elsewhere.
void set_targets(TuneData& data, double k, double lambda);

// The evaluation (White's view, before the count's adjustments) of an entry.
double entry_eval(const TuneData& data, const TuneEntry& e, const std::vector<double>& weights);
// Mean squared error of sigmoid(eval * k / 400) against the targets.
double tune_error(const TuneData& data, const std::vector<double>& weights, double k);
// The k that minimises the error for these weights (run before set_targets,
// the targets are the results).
double fit_k(const TuneData& data, const std::vector<double>& weights);

// Weights as one vector: entry 2i is parameter i's middlegame value, 2i + 1
// its endgame value.
// Adam over every weight, with an optional L2 pull (l2 per centipawn squared)
// towards the starting weights; prints the error each `report` iterations to
// `log`. With `held` (positions kept out of tuning), the weights with the
// lowest error on them at a report are kept. With `global_step`, one step
// scale for all weights (the steepest moves `rate`, the others in proportion
// to their gradient) instead of one per weight. Returns the final error.
double tune_weights(const TuneData& data, std::vector<double>& weights, double k, int iterations,
                    double rate, std::ostream* log, int report = 10,
                    const TuneData* held = nullptr, double l2 = 0, bool global_step = false,
                    const std::vector<bool>* frozen = nullptr);  // by parameter: not tuned

std::vector<double> params_to_weights(const EvalParams& p);
EvalParams weights_to_params(const std::vector<double>& w);

// The table as C++ source (defines DEFAULT_EVAL_PARAMS), and back.
void write_params_source(const EvalParams& p, std::ostream& out, const std::string& comment);
bool read_params_source(std::istream& in, EvalParams& p, std::string* error);

// ---- The `makruk selfplay` and `makruk tune` commands ----

struct SelfplayCommand {
  std::string variant = "makruk", openings, out;  // out empty: standard output
  std::string params;                             // weights file to play with; empty: compiled in
  std::string eval_file;                          // the network, by nnue::network_by_name
  SelfplayOptions options;
};
int run_selfplay_command(SelfplayCommand& c, std::ostream& log);

// What a command that writes data lines (selfplay, label) plays and writes
// with: `eval_file`'s networks (nnue::network_by_name) into `networks`, and
// `path` opened in `file` to append to (empty: standard output). Null, with a
// message naming `command`, when the network cannot be had or `path` written.
std::ostream* engine_output(const char* command, const std::string& eval_file, nnue::Networks& networks,
                            const std::string& path, std::ofstream& file, std::ostream& log);

struct TuneCommand {
  std::string variant = "makruk";
  std::vector<std::string> data;  // FEN;RESULT files
  std::string from;               // start from this table (eval_params.cpp format); empty: compiled in
  std::string out;                // write the tuned table here
  int iterations = 500;
  double rate = 1.0;              // Adam step, centipawns
  size_t max_positions = 0;       // 0: all
  double k = 0;                   // 0: fit it
  double lambda = 1;              // weight of the result against the search score in the target
  double l2 = 0;                  // pull towards the starting weights
  bool global_step = false;       // one step scale for all weights (see tune_weights)
  std::vector<std::string> freeze;  // EvalParams fields left as they are
  bool hold_out = true;           // keep a tenth of the positions out, to report over-fitting
  int report = 10;
};
int run_tune_command(const TuneCommand& c, std::ostream& log);

}  // namespace makruk::engine
