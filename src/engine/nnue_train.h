// The trainer of the learned evaluation (nnue.h): plain C++ on the CPU, one
// thread, seeded, so the same data and options give the same network.
//
// It fits the network's output to what a position is worth to the side to
// move, with the hand-written evaluation's scale: the expected score is
// sigmoid(cp · k / 400), and the target is λ · the game's result + (1 − λ) ·
// sigmoid(search score · k / 400), as `makruk tune` does. Mini-batch Adam on
// the mean squared error, the dense layers' weights kept within what int8
// holds after quantisation; a tenth of the positions (every tenth block of
// 1,000, whole games mostly) is held out and the network with the lowest
// held-out error is the one kept.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"
#include "nnue.h"

namespace makruk::engine::nnue {

// The positions, as the network's active inputs.
struct TrainData {
  struct Entry {
    uint32_t begin = 0;      // into inputs: the White perspective's, then Black's
    uint8_t n_white = 0, n_black = 0;
    uint8_t stm = 0;         // Color
    float result = 0.5f;     // the game's, White's view
    float score = 0;         // the search's, White's view, in cp
    bool has_score = false;
    uint8_t variant = 0;     // Variant
    float hand_eval = 0;     // the hand-written evaluation's, for the side to move, in cp
    uint8_t bucket = 0;      // its set of dense layers (bucket_of)
  };
  std::vector<uint16_t> inputs;
  std::vector<Entry> entries;
};

// Reads "FEN;RESULT[;SCORE]" lines (makruk selfplay); positions without pawns
// are left out (the count decides them, and the hand-written evaluation
// keeps them). With `mirror`, each Makruk position comes a second time with
// its files mirrored (a-h): Makruk's moves are the same either way, so the
// value is too; so does an Ouk Chatrang position once no first-move right is
// left (the rights are not symmetric: the king leaps from d1). False, with the line's number in *error, on a bad line.
// The trainer's inputs of a position from one perspective (the network's,
// and with king zones each piece again in the shared set); returns how many.
constexpr int MAX_TRAIN_ACTIVE = 2 * MAX_ACTIVE;
int train_inputs(const Position& pos, Color perspective, uint16_t out[MAX_TRAIN_ACTIVE]);
bool load_train_data(std::istream& in, Variant variant, size_t max_positions, TrainData& data, std::string* error,
                     bool mirror = false);
void add_position(const Position& pos, double result, int score, bool has_score, TrainData& data);
// Adds the last entry again with its board mirrored (files a-h).
void add_mirrored_last(TrainData& data);

// The network in floats, as trained: all weights in one vector (ft_w, ft_b,
// l1_w, l1_b, l2_w, l2_b, out_w, out_b; each dense one BUCKETS times over).
class FloatNetwork {
 public:
  static constexpr size_t B = BUCKETS;
  // With king zones the trainer has one more set of piece inputs, shared by
  // every zone (each position has its pieces on in its zone and in this set),
  // so that what a piece on a square is worth whatever the zone is learnt from
  // every position; the quantised network folds it into each zone's.
  static constexpr size_t SHARED_INPUT = size_t(INPUTS);
  static constexpr size_t FT_ROWS = size_t(INPUTS) + (KING_ZONES > 1 ? PIECE_INPUTS : 0);
  static constexpr size_t FT_W = 0, FT_B = FT_W + FT_ROWS * HIDDEN, L1_W = FT_B + HIDDEN,
                          L1_B = L1_W + B * L1 * 2 * HIDDEN, L2_W = L1_B + B * L1, L2_B = L2_W + B * L2 * L1,
                          OUT_W = L2_B + B * L2, OUT_B = OUT_W + B * L2, SIZE = OUT_B + B;
  // The largest weights that int8 (the first dense layer) and int16 (the
  // second and the output) hold after quantisation.
  static constexpr float L1_LIMIT = 127.0f / L1_SCALE;
  static constexpr float DENSE_LIMIT = float(nnue::DENSE_LIMIT);

  explicit FloatNetwork(uint64_t seed);
  // A quantised network's weights as floats, to train on from there (fine-tuning):
  // quantise() gives the same network back.
  static FloatNetwork from(const Network& net);
  std::vector<float> w;
  // Random first weights (a residual network's output then starts at nothing).
  bool fresh = true;

  // The output (1.0 = OUTPUT_SCALE cp) for the side to move, from the active
  // inputs of its perspective and the other's, through the dense layers of `bucket`.
  float forward(const uint16_t* us, int n_us, const uint16_t* them, int n_them, int bucket) const;
  // The quantised network (nnue.h), rounded; weights out of range are clipped.
  std::unique_ptr<Network> quantise() const;
};

struct TrainOptions {
  int epochs = 10;
  int batch = 1024;
  double rate = 1e-3;      // Adam's step
  double decay = 0.85;     // the step's factor after each epoch
  double k = 0.367;        // sigmoid scale (makruk tune's fitted k for these weights)
  double lambda = 0.5;     // weight of the result against the search score
  uint64_t seed = 1;
  bool hold_out = true;
  bool residual = false;   // the network learns a correction added to the hand-written evaluation
  double l2 = 0;           // weight decay (decoupled, per step: w -= rate × l2 × w)
};

struct TrainReport {
  std::vector<double> train_error, held_out_error;  // per epoch (mean squared error)
  double initial_error = 0;                         // on the training positions, before the first step
  double hand_written_error = 0;                    // the hand-written evaluation's on the held-out positions
  // The held-out error of the network a training started from (not a fresh one),
  // a candidate beside the epochs; -1 when there is none (a fresh network, no
  // hold-out, or a training resumed from a checkpoint).
  double start_held_out_error = -1;
  int best_epoch = -1;  // the epoch kept (from 0); -1: none, or the network started from
};

// The training's state after an epoch: with it a training that was stopped
// goes on as if it had not been (the same network to the bit). It names the
// data (a fingerprint) and the options it was made with, and is refused for
// others; only the number of epochs may grow.
struct TrainCheckpoint {
  uint64_t data = 0;  // data_fingerprint()
  TrainOptions options;
  int epochs_done = 0;
  int64_t step = 0;   // Adam's
  double rate = 0;    // the step size for the next epoch (after decay)
  double best_error = 0;
  TrainReport report;
  std::vector<float> w, m, v, best;  // the weights, Adam's moments, the best epoch's weights
};
uint64_t data_fingerprint(const TrainData& data);
std::string save_checkpoint(const TrainCheckpoint& c);
// False, with the reason in *error, on a file that is not a whole checkpoint
// of this build's network size.
bool load_checkpoint(std::string_view bytes, TrainCheckpoint& out, std::string* error);
// Whether `c` can go on with this data and these options; if not, why.
bool can_resume(const TrainCheckpoint& c, const TrainData& data, const TrainOptions& o, std::string* why);

// Trains `net` on `data`; leaves in it the weights of the epoch with the lowest
// held-out error (without a hold-out, the lowest training error), or, for a
// network that is not fresh, its own weights when no epoch does better on the
// held-out positions (best_epoch −1). Prints a line per
// epoch to `log` when given. With `resume` (checked by can_resume) it goes on
// from there instead of from `net`; `after_epoch` is given the state after each
// epoch (to save it).
TrainReport train(FloatNetwork& net, const TrainData& data, const TrainOptions& o, std::ostream* log,
                  const TrainCheckpoint* resume = nullptr,
                  const std::function<void(const TrainCheckpoint&)>& after_epoch = {});

struct TrainCommand {
  std::string variant = "makruk";
  std::vector<std::string> data;  // FEN;RESULT;SCORE files
  std::string out;                // the network file
  size_t max_positions = 0;       // 0: all
  bool mirror = false;            // positions also mirrored where the rules allow (see load_train_data)
  std::string checkpoint;         // the state written here after each epoch
  std::string resume;             // a checkpoint to go on from
  std::string init;               // a network to start from instead of random weights
  TrainOptions options;
};
int run_train_command(const TrainCommand& c, std::ostream& log);

}  // namespace makruk::engine::nnue
