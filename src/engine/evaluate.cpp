#include "evaluate.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "core/game.h"

namespace makruk::engine {

int SEE_VALUE[PIECE_TYPE_NB] = {0, 100, 330, 510, 640, 1100, 20000, 330};

namespace {

const EvalParams* g_params = &DEFAULT_EVAL_PARAMS;

int edge_distance(Square s) {  // 0 (centre) … 6 (corner)
  return std::abs(2 * file_of(s) - 7) / 2 + std::abs(2 * rank_of(s) - 7) / 2;
}
int distance(Square a, Square b) {
  return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

// The squares ahead of a pawn on its own and the adjacent files: with no enemy
// pawn there, the pawn is passed.
struct PassedMasks {
  Bitboard m[COLOR_NB][64] = {};
  PassedMasks() {
    for (int c = 0; c < COLOR_NB; ++c)
      for (Square s = 0; s < 64; ++s)
        for (int r = 0; r < 8; ++r) {
          if (c == WHITE ? r <= rank_of(s) : r >= rank_of(s)) continue;
          for (int f = std::max(0, file_of(s) - 1); f <= std::min(7, file_of(s) + 1); ++f)
            m[c][s] |= square_bb(make_square(f, r));
        }
  }
};
const PassedMasks PASSED;

// The evaluation's terms, handed one by one to a sink: ScoreSink adds the
// weights (evaluate), FeatureSink counts how often each weight applies (tuning).
struct ScoreSink {
  const EvalParams& p;
  Score s[COLOR_NB] = {};
  void add(Color c, const Score& w) { s[c] += w; }
};

struct FeatureSink {
  const EvalParams& p;
  EvalFeatures& f;
  void add(Color c, const Score& w) {
    f.count[&w - param_array(p)] += c == WHITE ? 1 : -1;
  }
};

template <class Sink>
int evaluate_terms(const Position& pos, Sink& sink) {
  const EvalParams& P = sink.p;
  const Bitboard occupied = pos.pieces();
  Bitboard pawnAttacks[COLOR_NB], attacked[COLOR_NB];
  for (Color c : {WHITE, BLACK}) {
    pawnAttacks[c] = 0;
    for (Bitboard b = pos.pieces(c, PAWN); b;) pawnAttacks[c] |= pawn_attacks(c, pop_lsb(b));
    attacked[c] = pawnAttacks[c] | king_attacks(pos.king_square(c));
  }
  int phase = 0;
  // For Ouk Chatrang's king safety only (below): Makruk's evaluation skips them.
  const bool ouk = pos.variant() == Variant::Ouk;
  Bitboard attackedBy[COLOR_NB][PIECE_TYPE_NB] = {};  // met-movers under MET
  Bitboard attacked2[COLOR_NB], notByKing[COLOR_NB];   // attacked twice; attacked by other than the king
  for (Color c : {WHITE, BLACK}) {
    attacked2[c] = pawnAttacks[c] & king_attacks(pos.king_square(c));
    notByKing[c] = pawnAttacks[c];
  }
  int zoneAttackers[COLOR_NB] = {}, units[COLOR_NB] = {};

  for (Color us : {WHITE, BLACK}) {
    const Color them = ~us;
    const Bitboard ours = pos.pieces(us);
    const Bitboard safe = ~ours & ~pawnAttacks[them];
    const Square theirKing = pos.king_square(them);
    const Bitboard kingZone = king_attacks(theirKing) | square_bb(theirKing);

    for (Bitboard b = ours; b;) {
      Square sq = pop_lsb(b);
      PieceType pt = type_of(pos.piece_on(sq));
      sink.add(us, P.piece_value[pt]);
      sink.add(us, P.psq[pt][psq_index(us, sq)]);
      phase += PHASE_WEIGHT[pt];
      if (square_bb(sq) & pawnAttacks[us]) sink.add(us, P.defended_by_pawn[pt]);
      if (square_bb(sq) & pawnAttacks[them]) sink.add(us, P.threat_by_pawn[pt]);
      Bitboard att = 0;
      switch (pt) {
        case KNIGHT:
          att = knight_attacks(sq);
          sink.add(us, P.mobility_knight[popcount(att & safe)]);
          break;
        case ROOK: {
          att = rook_attacks(sq, occupied);
          sink.add(us, P.mobility_rook[popcount(att & safe)]);
          Bitboard file = file_bb(file_of(sq));
          if (!(file & pos.pieces(PAWN))) sink.add(us, P.rook_open_file);
          else if (!(file & pos.pieces(us, PAWN))) sink.add(us, P.rook_half_open_file);
          break;
        }
        case KHON:
          att = khon_attacks(us, sq);
          sink.add(us, P.mobility_khon[popcount(att & safe)]);
          break;
        case MET:
        case PROMOTED:
          att = met_attacks(sq);
          sink.add(us, P.mobility_met[popcount(att & safe)]);
          break;
        default: break;
      }
      if (ouk) {
        attacked2[us] |= attacked[us] & att;
        notByKing[us] |= att;
        attackedBy[us][pt == PROMOTED ? MET : pt] |= att;
      }
      attacked[us] |= att;
      if (att & kingZone) units[us] += KING_ATTACK_UNITS[pt], ++zoneAttackers[us];
    }

    // The king's guard: our pieces and pawns next to it.
    for (Bitboard b = king_attacks(pos.king_square(us)) & ours; b;)
      sink.add(us, P.king_defender[type_of(pos.piece_on(pop_lsb(b)))]);

    // Pawn structure: chains hold, doubled and isolated pawns are weak, a
    // passed pawn heads for its sixth rank.
    const Bitboard pawns = pos.pieces(us, PAWN);
    const Bitboard theirPawns = pos.pieces(them, PAWN);
    for (Bitboard b = pawns; b;) {
      Square sq = pop_lsb(b);
      int f = file_of(sq);
      Bitboard adjacent = (f > 0 ? file_bb(f - 1) : 0) | (f < 7 ? file_bb(f + 1) : 0);
      if (!(pawns & adjacent)) sink.add(us, P.pawn_isolated);
      if (more_than_one(pawns & file_bb(f))) sink.add(us, P.pawn_doubled);
      if (pawns & adjacent & rank_bb(rank_of(sq))) sink.add(us, P.pawn_phalanx);
      if (!(PASSED.m[us][sq] & theirPawns)) sink.add(us, P.pawn_passed[relative_rank(us, sq)]);
    }
  }

  // Pieces the opponent attacks and we do not defend.
  for (Color us : {WHITE, BLACK})
    for (Bitboard b = pos.pieces(us) & ~pos.pieces(KING) & attacked[~us] & ~attacked[us]; b;)
      sink.add(us, P.hanging[type_of(pos.piece_on(pop_lsb(b)))]);

  // Ouk Chatrang: each check an attacker has ready adds to its attack on the
  // king, and a side with one counts as an attacker. A check is safe on a square
  // no piece or pawn of theirs guards, and where the king could take, another of
  // ours guards.
  if (ouk)
    for (Color us : {WHITE, BLACK}) {
      const Color them = ~us;
      const Square theirKing = pos.king_square(them);
      const Bitboard safe = ~pos.pieces(us) & ~notByKing[them] & (~king_attacks(theirKing) | attacked2[us]);
      const Bitboard from[] = {knight_attacks(theirKing), rook_attacks(theirKing, occupied),
                               khon_attacks(them, theirKing), met_attacks(theirKing)};
      const PieceType types[] = {KNIGHT, ROOK, KHON, MET};
      int checks = 0;
      for (int i = 0; i < 4; ++i) {
        const int n = popcount(from[i] & attackedBy[us][types[i]] & safe);
        units[us] += n * KING_ATTACK_UNITS[types[i]];
        checks += n;
      }
      if (checks) ++zoneAttackers[us];
    }
  for (Color us : {WHITE, BLACK})
    if (zoneAttackers[us] >= 2) sink.add(us, P.king_attack[std::min(units[us], 31)]);
  return phase;
}

// Mop-up: with the defender reduced to a bare king, drive it to the edge and
// the corner, and bring the king and the pieces to it, so that mates within
// the count are found (bench/endgames.cpp; figures in docs/engine.md).
Value mop_up(const Position& pos, Color strong) {
  const Square weakKing = pos.king_square(~strong), strongKing = pos.king_square(strong);
  int v = 25 * edge_distance(weakKing) + 10 * (7 - distance(weakKing, strongKing));
  // The short-stepping pieces mate only together: keep them near the king.
  for (Bitboard b = pos.pieces(strong) & ~pos.pieces(strong, KING); b;)
    v += 4 * (7 - distance(weakKing, pop_lsb(b)));
  return v;
}

// A side's pieces (not pawns, not the king) at their endgame values.
int piece_material(const Position& pos, Color c, const EvalParams& p) {
  int m = 0;
  for (PieceType pt : {MET, KHON, KNIGHT, ROOK, PROMOTED}) m += popcount(pos.pieces(c, pt)) * p.piece_value[pt].eg;
  return m;
}

// With no pawn left and a piece on each side, the count usually draws: one
// minor piece cannot win at all, and a small advantage seldom wins in time
// (self-play: KRM v KR, KN v KM, KNM v KSM and most others end drawn at +1 to +7
// pawns of evaluation). The factor, in 64ths, shrinks such advantages so that
// the search does not trade into them from a position it could win with pawns.
// Both games (Ouk Chatrang's self-play shows the same; docs/engine.md).
int pawnless_scale(const Position& pos, Color strong, const EvalParams& p) {
  const int pieces = popcount(pos.pieces(strong) & ~pos.pieces(strong, KING));
  if (!pos.pieces(strong, ROOK) && pieces == 1) return 0;
  if (piece_material(pos, strong, p) - piece_material(pos, ~strong, p) <= p.piece_value[KNIGHT].eg + 25) return 14;
  return 36;
}

}  // namespace

const EvalParams& eval_params() { return *g_params; }

void set_eval_params(const EvalParams& p) {
  static EvalParams custom;
  custom = p;
  g_params = &custom;
}

const std::vector<ParamField>& param_fields() {
#define MAKRUK_FIELD(name, rows) \
  ParamField { #name, int(offsetof(EvalParams, name) / sizeof(Score)), int(sizeof(EvalParams::name) / sizeof(Score)), rows }
  static const std::vector<ParamField> fields = {
      MAKRUK_FIELD(piece_value, 1),        MAKRUK_FIELD(psq, PIECE_TYPE_NB),
      MAKRUK_FIELD(mobility_knight, 1),    MAKRUK_FIELD(mobility_khon, 1),
      MAKRUK_FIELD(mobility_met, 1),       MAKRUK_FIELD(mobility_rook, 1),
      MAKRUK_FIELD(rook_open_file, 1),     MAKRUK_FIELD(rook_half_open_file, 1),
      MAKRUK_FIELD(king_attack, 1),        MAKRUK_FIELD(king_defender, 1),
      MAKRUK_FIELD(pawn_isolated, 1),      MAKRUK_FIELD(pawn_doubled, 1),
      MAKRUK_FIELD(pawn_phalanx, 1),       MAKRUK_FIELD(pawn_passed, 1),
      MAKRUK_FIELD(defended_by_pawn, 1),   MAKRUK_FIELD(threat_by_pawn, 1),
      MAKRUK_FIELD(hanging, 1),            MAKRUK_FIELD(tempo, 1),
  };
#undef MAKRUK_FIELD
  return fields;
}

void evaluation_features(const Position& pos, EvalFeatures& f) {
  f = EvalFeatures{};
  FeatureSink sink{eval_params(), f};
  f.phase = std::min(evaluate_terms(pos, sink), PHASE_MAX);
}

// Few pawns on the stronger side: the endgame's advantage often ends in a
// pawnless ending that the count draws (self-play: at the same evaluation a
// side with one pawn scored 52%, with five 73%).
int few_pawns_scale(const Position& pos, Color strong) {
  static constexpr int FEW_PAWNS[4] = {32, 40, 50, 58};
  if (!pos.pieces(PAWN)) return 64;
  const int n = popcount(pos.pieces(strong, PAWN));
  return n < 4 ? FEW_PAWNS[n] : 64;
}

Value finish_evaluation(const Position& pos, Score s, int phase, const EvalParams& p) {
  phase = std::min(phase, PHASE_MAX);
  const int eg = s.eg * few_pawns_scale(pos, s.eg > 0 ? WHITE : BLACK) / 64;
  int v = (s.mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;

  const Color strong = v > 0 ? WHITE : BLACK;
  const Color weak = ~strong;
  if (!pos.pieces(PAWN)) {
    if (pos.pieces(weak) == pos.pieces(weak, KING)) {
      // Against a bare king only the material and the mating plan count: the
      // placement terms would pull the pieces to their middlegame squares.
      const int m = mop_up(pos, strong) + piece_material(pos, strong, p);
      v = strong == WHITE ? m : -m;
    } else {
      v = v * pawnless_scale(pos, strong, p) / 64;
    }
    // Material that can never mate is worth little.
    if (!can_checkmate(pos, strong)) v /= 8;
    // The count: a pawnless advantage fades as the hunted side's moves run out.
    const Count& c = pos.count();
    if (c.running() && c.side == weak) {
      int remaining = std::max(0, c.limit - c.n);
      if (remaining < 16) v = v * (remaining + 2) / 18;
    }
  }
  const int tempo = (p.tempo.mg * phase + p.tempo.eg * (PHASE_MAX - phase)) / PHASE_MAX;
  v += pos.side_to_move() == WHITE ? tempo : -tempo;
  return pos.side_to_move() == WHITE ? v : -v;
}

Value evaluate(const Position& pos) {
  ScoreSink sink{*g_params};
  int phase = evaluate_terms(pos, sink);
  return finish_evaluation(pos, sink.s[WHITE] - sink.s[BLACK], phase, sink.p);
}

}  // namespace makruk::engine
