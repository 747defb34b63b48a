// The learned evaluation: an efficiently updatable neural network (NNUE).
//
// Inputs, seen from each side ("perspective") in turn, the board turned over
// for Black so that every side looks up the board:
//   - one per (piece type, own or enemy, square): 7 × 2 × 64 (the promoted
//     pawn is a type of its own), KING_ZONES times over: each perspective's
//     pieces are seen through the zone its own king stands in (king_zone;
//     one zone, the default build, makes the inputs independent of the king);
//   - the Ouk first-move rights: own king, own neang, enemy king, enemy neang;
//   - one that is on in Ouk Chatrang (one network serves both variants).
// A feature transformer (INPUTS → HIDDEN, int16) gives each perspective an
// accumulator, kept up to date move by move; the side to move's accumulator
// and the other's, clipped to [0, 1], feed two small dense layers (int8
// weights, int32 sums) and one output, in centipawns for the side to move.
// The dense layers come in BUCKETS sets, one for each range of the number of
// pieces on the board (bucket_of); a position is evaluated by its range's.
//
// Quantisation: transformer weights and biases × FT_SCALE × 2^ACC_SHIFT
// (int16: the accumulators keep 3 more bits than the activations), its
// output, rounded, shifted back and clipped to 0..127, stands for 0..1
// (uint8, for the wide first dense layer, whose weights are × L1_SCALE, int8,
// its bias × L1_ONE = FT_SCALE × L1_SCALE). Past that layer the activations
// keep a finer unit, 1/HIDDEN_ONE (int16, HIDDEN_ONE = L1_ONE >> L1_SHIFT):
// the first layer's sums rounded and shifted by L1_SHIFT. The second layer's
// and the output's weights are × DENSE_SCALE (int16, within ±DENSE_LIMIT),
// their biases × HIDDEN_ONE × DENSE_SCALE, their sums 32-bit; the second's
// are rounded back by DENSE_SHIFT, and the output's × OUTPUT_SCALE /
// (HIDDEN_ONE × DENSE_SCALE) is centipawns. The trainer (nnue_train.cpp)
// writes the same layout.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/position.h"
#include "evaluate.h"

namespace makruk::engine::nnue {

#ifndef MAKRUK_NNUE_KING_ZONES
#define MAKRUK_NNUE_KING_ZONES 1  // CMake's MAKRUK_NNUE_KING_ZONES, to measure inputs relative to the king
#endif
constexpr int KING_ZONES = MAKRUK_NNUE_KING_ZONES;
static_assert(KING_ZONES == 1 || KING_ZONES == 2 || KING_ZONES == 3 || KING_ZONES == 6 || KING_ZONES == 9,
              "king zones: 1, 2 (file), 3 (rank), 6 or 9 (rank and file)");
constexpr int PIECE_INPUTS = 7 * 2 * 64;        // one zone's
constexpr int ZONED_INPUTS = KING_ZONES * PIECE_INPUTS;
constexpr int RIGHTS_INPUT = ZONED_INPUTS;      // 4 inputs
constexpr int OUK_INPUT = ZONED_INPUTS + 4;     // 1 input
constexpr int INPUTS = ZONED_INPUTS + 5;
#ifndef MAKRUK_NNUE_HIDDEN
#define MAKRUK_NNUE_HIDDEN 128  // CMake's MAKRUK_NNUE_HIDDEN, to measure other sizes
#endif
constexpr int HIDDEN = MAKRUK_NNUE_HIDDEN;  // per perspective
#ifndef MAKRUK_NNUE_BUCKETS
#define MAKRUK_NNUE_BUCKETS 1  // CMake's MAKRUK_NNUE_BUCKETS, to measure other numbers
#endif
constexpr int BUCKETS = MAKRUK_NNUE_BUCKETS;  // sets of dense layers, by the number of pieces
static_assert(BUCKETS >= 1 && BUCKETS <= 8, "one to eight sets of dense layers");
static_assert(HIDDEN % 32 == 0, "the SIMD code works on 32 accumulator values at a time");
constexpr int L1 = 32;
constexpr int L2 = 32;
constexpr int MAX_ACTIVE = 40;  // 32 pieces, 4 rights, the variant
static_assert(INPUTS < 65536, "the trainer keeps inputs as uint16");

constexpr int FT_SCALE = 127;
constexpr int ACC_SHIFT = 3;
constexpr int ACC_SCALE = FT_SCALE << ACC_SHIFT;
constexpr int L1_SCALE = 128;
constexpr int L1_ONE = FT_SCALE * L1_SCALE;
constexpr int L1_SHIFT = 4;
constexpr int HIDDEN_ONE = L1_ONE >> L1_SHIFT;  // 1016
constexpr int DENSE_SHIFT = 10;
constexpr int DENSE_SCALE = 1 << DENSE_SHIFT;
constexpr int DENSE_LIMIT = 16;  // |weight| of the second and output layers: 32 × 1016 × 16 × 1024 fits int32
constexpr int OUTPUT_SCALE = 400;  // a network output of 1.0 is 400 cp

// The zone of a king on square `s`, seen from its own side (the board turned
// over for Black): by rank (the first, the second, further up) with three or
// more zones, by file (d and e, c and f, the wings) with two or more:
// 2 = the centre files or not, 3 = the rank groups, 6 = three ranks × centre or
// not, 9 = three ranks × three file groups. The zones are the same for a king
// mirrored left to right, so a position and its mirror image see the same zone.
constexpr int king_zone(Square s) {
  const int rank = s >> 3, file = s & 7, edge = file < 4 ? file : 7 - file;  // edge: 3 for d and e
  const int ranks = rank < 2 ? rank : 2, centre = edge == 3 ? 0 : 1;
  switch (KING_ZONES) {
    case 1: return 0;
    case 2: return centre;
    case 3: return ranks;
    case 6: return ranks * 2 + centre;
    default: return ranks * 3 + (edge == 3 ? 0 : edge == 2 ? 1 : 2);
  }
}

// A square as `perspective` sees it: the board turned over for Black.
constexpr Square seen_from(Color perspective, Square s) { return perspective == WHITE ? s : s ^ 56; }

// The zone `perspective` sees its pieces through: its own king's.
inline int zone_of(const Position& pos, Color perspective) {
  if (KING_ZONES == 1) return 0;
  return king_zone(seen_from(perspective, pos.king_square(perspective)));
}

// The input index of a piece on a square, seen from `perspective` whose king
// stands in `zone`.
constexpr int piece_input(Color perspective, Piece p, Square s, int zone = 0) {
  const int sq = seen_from(perspective, s);
  const int own = color_of(p) == perspective ? 0 : 1;
  return zone * PIECE_INPUTS + ((int(type_of(p)) - 1) * 2 + own) * 64 + sq;
}

// The set of dense layers a position is evaluated with: its pieces (2 to 32,
// kings included) in BUCKETS equal ranges, the fewest first.
inline int bucket_of(const Position& pos) {
  const int pieces = std::clamp(popcount(pos.pieces()), 2, 32);
  return (pieces - 1) * BUCKETS / 32;
}

// The active inputs of a position from one perspective; returns how many.
int active_inputs(const Position& pos, Color perspective, int out[MAX_ACTIVE]);

struct Network {
  alignas(64) int16_t ft_weights[INPUTS * HIDDEN];  // [input][hidden]
  alignas(64) int16_t ft_bias[HIDDEN];
  // The dense layers, BUCKETS sets one after the other.
  alignas(64) int8_t l1_weights[BUCKETS * L1 * 2 * HIDDEN];  // [bucket][output][input]
  alignas(64) int32_t l1_bias[BUCKETS * L1];
  alignas(64) int16_t l2_weights[BUCKETS * L2 * L1];
  alignas(64) int32_t l2_bias[BUCKETS * L2];
  alignas(64) int16_t out_weights[BUCKETS * L2];
  int32_t out_bias[BUCKETS];
  // The output is a correction added to the hand-written evaluation (a
  // network trained with --residual), not the whole evaluation.
  bool residual = false;
  // The variants it was trained on (bit 0: Makruk, bit 1: Ouk Chatrang); the
  // search uses it for those only.
  uint8_t variants = 3;
  bool plays(Variant v) const { return variants & (v == Variant::Makruk ? 1 : 2); }
};

// The network each variant is evaluated with (null, or one that was not
// trained on the variant: the hand-written evaluation).
struct Networks {
  std::shared_ptr<const Network> makruk, ouk;
  static Networks all(const std::shared_ptr<const Network>& net) { return {net, net}; }
  const Network* of(Variant v) const {
    const Network* n = (v == Variant::Ouk ? ouk : makruk).get();
    return n && n->plays(v) ? n : nullptr;
  }
};

// The file: "MKNN", a format version (uint32), INPUTS, HIDDEN, L1, L2,
// flags (bit 0: residual; bit 1: trained on Makruk, bit 2: on Ouk Chatrang)
// and the number of sets of dense layers (uint32 each), then the arrays in the
// order above, little-endian. Version 6, without the number, has one set: a
// build with more reads it into each (the same evaluation).
constexpr uint32_t FILE_VERSION = 7;
// Reads a network; on failure returns null and says why in *error.
std::unique_ptr<Network> load(std::string_view bytes, std::string* error);
std::unique_ptr<Network> load_file(const std::string& path, std::string* error);
std::string save(const Network& net);

struct Accumulator {
  alignas(64) int16_t v[COLOR_NB][HIDDEN];
};

// From scratch.
void refresh(const Network& net, const Position& pos, Accumulator& acc);
// The inputs a move (or anything else) switched off and on.
struct Delta {
  int removed[COLOR_NB][6];  // the mover's square, a captured piece, 4 rights
  int added[COLOR_NB][2];    // the mover (or its promotion) on its new square
  int n_removed = 0, n_added = 0;  // the same count for both perspectives
  // With king zones: a king that changed zone changes every input of its own
  // perspective; that perspective is then computed afresh from these inputs
  // (n_all[c] >= 0) instead of from the lists above.
  int all[COLOR_NB][KING_ZONES > 1 ? MAX_ACTIVE : 1];
  int n_all[COLOR_NB] = {-1, -1};
};
// The inputs the last move changed (the moved piece, a capture, a promotion,
// the rights), read from the position after it; none after a null move.
Delta last_move_delta(const Position& after);
void update(const Network& net, const Accumulator& from, const Delta& d, Accumulator& to);

// The network's evaluation, in centipawns for the side to move, with the
// dense layers of `bucket` (bucket_of the position).
Value evaluate(const Network& net, const Accumulator& acc, Color side_to_move, int bucket);

// Whether the AVX2 code runs (else the scalar code).
bool uses_avx2();
// For tests: run the scalar code even where AVX2 is there.
void force_scalar(bool on);
// For tests: the search compares every accumulator it brings up to date with
// a refresh, and counts the comparisons and the differences.
// (Read on every evaluation, so inline.)
inline bool search_accumulators_checked = false;
inline void check_search_accumulators(bool on) { search_accumulators_checked = on; }
inline bool checking_search_accumulators() { return search_accumulators_checked; }
struct AccumulatorChecks {
  uint64_t checked = 0, differed = 0;
};
AccumulatorChecks& accumulator_checks();

}  // namespace makruk::engine::nnue
