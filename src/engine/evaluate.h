// The static evaluation: a tapered (middlegame/endgame) hand-written score
// from the side to move's point of view, aware of the endgame count. Every
// weight lives in one table, EvalParams, tuned from game data by
// `makruk tune` (src/engine/tune.cpp) and compiled in from eval_params.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/position.h"

namespace makruk::engine {

using Value = int;
constexpr Value VALUE_ZERO = 0;
constexpr Value VALUE_DRAW = 0;
constexpr Value VALUE_MATE = 32000;
constexpr Value VALUE_INFINITE = 32001;
constexpr Value VALUE_NONE = 32002;
constexpr int MAX_PLY = 120;
constexpr Value VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY;

constexpr Value mate_in(int ply) { return VALUE_MATE - ply; }
constexpr Value mated_in(int ply) { return -VALUE_MATE + ply; }

// A weight (middlegame, endgame), in centipawns.
struct Score {
  int mg = 0, eg = 0;
  constexpr Score operator+(Score o) const { return {mg + o.mg, eg + o.eg}; }
  constexpr Score operator-(Score o) const { return {mg - o.mg, eg - o.eg}; }
  constexpr Score operator*(int k) const { return {mg * k, eg * k}; }
  Score& operator+=(Score o) { return *this = *this + o; }
  Score& operator-=(Score o) { return *this = *this - o; }
  constexpr bool operator==(const Score&) const = default;
};

// Units a piece adds to the attack on the enemy king when it hits the king's zone
// (and in Ouk Chatrang, for each safe check it has ready: evaluate.cpp).
constexpr int KING_ATTACK_UNITS[PIECE_TYPE_NB] = {0, 0, 1, 2, 2, 3, 0, 1};

// Game phase: PHASE_MAX with all pieces, 0 with none but pawns and kings.
constexpr int PHASE_WEIGHT[PIECE_TYPE_NB] = {0, 0, 1, 2, 2, 4, 0, 1};
constexpr int PHASE_MAX = 2 * (1 + 2 * 2 + 2 * 2 + 2 * 4);

// Piece-square index: rank from the owner's side, files e–h mirrored onto d–a.
constexpr int psq_index(Color c, Square s) {
  int f = file_of(s);
  return relative_rank(c, s) * 4 + (f < 4 ? f : 7 - f);
}

// Every weight of the evaluation. Only Score members (the tuner sees the
// table as a flat array of Scores, in this order). Indexed by PieceType where
// the size is PIECE_TYPE_NB: -, pawn, met, khon, knight, rook, king, promoted pawn.
struct EvalParams {
  Score piece_value[PIECE_TYPE_NB];
  Score psq[PIECE_TYPE_NB][32];            // see psq_index
  Score mobility_knight[9];                // safe squares attacked
  Score mobility_khon[6];
  Score mobility_met[5];                   // met and promoted pawn
  Score mobility_rook[15];
  Score rook_open_file;                    // no pawn on the file
  Score rook_half_open_file;               // no pawn of ours on the file
  Score king_attack[32];                   // by attack units, with two attackers or more
  Score king_defender[PIECE_TYPE_NB];      // our piece next to our king
  Score pawn_isolated;
  Score pawn_doubled;
  Score pawn_phalanx;                      // a pawn of ours beside it
  Score pawn_passed[8];                    // by rank from the owner's side
  Score defended_by_pawn[PIECE_TYPE_NB];   // our piece (or pawn) on a square our pawn guards
  Score threat_by_pawn[PIECE_TYPE_NB];     // our piece attacked by an enemy pawn
  Score hanging[PIECE_TYPE_NB];            // our piece attacked and not defended
  Score tempo;                             // for the side to move (after the count's scaling)
};

constexpr int EVAL_PARAM_COUNT = int(sizeof(EvalParams) / sizeof(Score));
static_assert(sizeof(EvalParams) == EVAL_PARAM_COUNT * sizeof(Score));

// The compiled-in table (eval_params.cpp, written by `makruk tune`).
extern const EvalParams DEFAULT_EVAL_PARAMS;
// The table evaluate() uses; DEFAULT_EVAL_PARAMS unless replaced (tests, tuning).
const EvalParams& eval_params();
void set_eval_params(const EvalParams& p);

// The table as a flat array of Scores, and its fields (name, place, size) in order.
inline const Score* param_array(const EvalParams& p) { return reinterpret_cast<const Score*>(&p); }
inline Score* param_array(EvalParams& p) { return reinterpret_cast<Score*>(&p); }
struct ParamField {
  const char* name;
  int offset, size;  // in Scores
  int rows;          // 1, or the first dimension of a 2-D array
};
const std::vector<ParamField>& param_fields();

// Single-number values for move ordering and exchange evaluation.
extern int SEE_VALUE[PIECE_TYPE_NB];

Value evaluate(const Position& pos);

// The evaluation's linear part as feature counts: for each table entry, how
// often it applies to White minus to Black (the tempo is left to
// finish_evaluation). evaluate(pos) equals finish_evaluation(pos, sum of
// count * weight, phase, table) for any table.
struct EvalFeatures {
  int16_t count[EVAL_PARAM_COUNT] = {};
  int phase = 0;  // 0 … PHASE_MAX
};
void evaluation_features(const Position& pos, EvalFeatures& f);
// Tapers a White-view Score by the phase, applies the count's adjustments
// and the tempo, and returns the side to move's view.
Value finish_evaluation(const Position& pos, Score total, int phase, const EvalParams& p);
// The factor (in 64ths) on the endgame part when `strong` is ahead and has few
// pawns left (with pawns on the board; 64 otherwise). The tuner applies it too.
int few_pawns_scale(const Position& pos, Color strong);

}  // namespace makruk::engine
