#include "search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/game.h"
#include "core/movegen.h"
#include "egtb.h"

namespace makruk::engine {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::span<const SearchParamField> search_param_fields() {
  using P = SearchParams;
  static constexpr SearchParamField fields[] = {
      {"rfp_depth", &P::rfp_depth, 1, 12, 0.7},        {"rfp_margin", &P::rfp_margin, 20, 400, 8},
      {"nmp_depth", &P::nmp_depth, 1, 8, 0.5},         {"nmp_base", &P::nmp_base, 1, 8, 0.5},
      {"nmp_depth_div", &P::nmp_depth_div, 1, 16, 0.5}, {"nmp_eval_div", &P::nmp_eval_div, 20, 1000, 15},
      {"see_depth", &P::see_depth, 1, 12, 0.7},        {"see_margin", &P::see_margin, 20, 400, 8},
      {"lmp_depth", &P::lmp_depth, 1, 12, 0.5},        {"lmp_base", &P::lmp_base, 1, 12, 0.5},
      {"fut_depth", &P::fut_depth, 1, 12, 0.5},        {"fut_base", &P::fut_base, 0, 500, 10},
      {"fut_margin", &P::fut_margin, 20, 400, 8},      {"lmr_base", &P::lmr_base, 0, 200, 6},
      {"lmr_div", &P::lmr_div, 100, 500, 10},          {"lmr_history", &P::lmr_history, 1000, 50000, 400},
      {"history_max", &P::history_max, 16, 4000, 25},  {"delta_margin", &P::delta_margin, 0, 1000, 15},
      {"se_depth", &P::se_depth, 0, 20, 0.5},          {"se_margin", &P::se_margin, 0, 20, 0.5},
      {"check_ext_depth", &P::check_ext_depth, 0, 20, 0.5}, {"lmr_checks", &P::lmr_checks, 0, 1, 0.3},
      {"fut_lmr", &P::fut_lmr, 0, 1, 0.3},             {"razor_depth", &P::razor_depth, 0, 8, 0.5},
      {"razor_margin", &P::razor_margin, 50, 1000, 15},
      {"aspiration", &P::aspiration, 5, 200, 3},
      {"check_see", &P::check_see, 0, 1, 0.3},         {"qs_checks", &P::qs_checks, 0, 1, 0.3},
      {"tt_eval", &P::tt_eval, 0, 1, 0.3},
  };
  return fields;
}

std::string format_search_params(const SearchParams& p) {
  std::string out;
  for (const SearchParamField& f : search_param_fields()) {
    if (!out.empty()) out += ' ';
    out += f.name;
    out += '=';
    out += std::to_string(p.*f.field);
  }
  return out;
}

bool parse_search_params(const std::string& text, SearchParams& p, std::string* error) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  SearchParams q = p;
  for (std::string pair; in >> pair;) {
    const size_t eq = pair.find('=');
    const std::string name = pair.substr(0, eq), value = eq == std::string::npos ? "" : pair.substr(eq + 1);
    const auto fields = search_param_fields();
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const SearchParamField& x) { return name == x.name; });
    if (f == fields.end()) {
      if (error) *error = "no search parameter named '" + name + "'";
      return false;
    }
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || v < f->min || v > f->max) {
      if (error)
        *error = "'" + name + "' needs a whole number from " + std::to_string(f->min) + " to " +
                 std::to_string(f->max) + ", got '" + value + "'";
      return false;
    }
    q.*f->field = int(v);
  }
  p = q;
  return true;
}

// Static exchange evaluation: the material balance of the capture sequence on
// the move's destination, each side taking with its least valuable piece.
int see(const Position& pos, Move m) {
  Square from = m.from(), to = m.to();
  int gain[32], d = 0;
  gain[0] = SEE_VALUE[type_of(pos.piece_on(to))];
  PieceType last = type_of(pos.piece_on(from));
  if (m.is_promotion()) {
    gain[0] += SEE_VALUE[PROMOTED] - SEE_VALUE[PAWN];
    last = PROMOTED;
  }
  Bitboard occupied = pos.pieces() ^ square_bb(from);
  Color side = ~color_of(pos.piece_on(from));
  for (;;) {
    Bitboard attackers = pos.attackers_to(to, occupied) & occupied & pos.pieces(side);
    if (!attackers) break;
    static constexpr PieceType ORDER[] = {PAWN, MET, PROMOTED, KHON, KNIGHT, ROOK, KING};
    Square sq = SQ_NONE;
    PieceType pt = NO_PIECE_TYPE;
    for (PieceType t : ORDER)
      if (Bitboard b = attackers & pos.pieces(t)) {
        sq = lsb(b);
        pt = t;
        break;
      }
    if (pt == KING && (pos.attackers_to(to, occupied) & occupied & pos.pieces(~side))) break;
    ++d;
    gain[d] = SEE_VALUE[last] - gain[d - 1];
    if (d >= 31) break;
    last = pt;
    occupied ^= square_bb(sq);
    side = ~side;
  }
  while (d > 0) {
    gain[d - 1] = -std::max(-gain[d - 1], gain[d]);
    --d;
  }
  return gain[0];
}

bool quiet_gives_check(const Position& pos, Move m) {
  const Color us = pos.side_to_move();
  const Square ksq = pos.king_square(~us), from = m.from(), to = m.to();
  const Bitboard occupied = (pos.pieces() ^ square_bb(from)) | square_bb(to);
  Bitboard checking_squares = 0;
  switch (type_of(pos.piece_on(from))) {
    case PAWN: checking_squares = pawn_attacks(~us, ksq); break;
    case KNIGHT: checking_squares = knight_attacks(ksq); break;
    case MET:
    case PROMOTED: checking_squares = met_attacks(ksq); break;
    case KHON: checking_squares = khon_attacks(~us, ksq); break;
    case ROOK: checking_squares = rook_attacks(ksq, occupied); break;
    default: break;
  }
  if (checking_squares & square_bb(to)) return true;
  return rook_attacks(ksq, occupied) & pos.pieces(us, ROOK) & ~square_bb(from);
}

namespace {

bool is_capture(const Position& pos, Move m) { return pos.piece_on(m.to()) != NO_PIECE; }

int64_t elapsed_ms(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

}  // namespace

std::string score_to_uci(Value v) {
  if (v >= VALUE_MATE_IN_MAX_PLY) return "mate " + std::to_string((VALUE_MATE - v + 1) / 2);
  if (v <= -VALUE_MATE_IN_MAX_PLY) return "mate " + std::to_string(-(VALUE_MATE + v) / 2);
  return "cp " + std::to_string(v);
}

// Time and node budget, shared by the threads of one search.
struct Budget {
  Clock::time_point start;
  int64_t optimum = 0, maximum = 0;  // ms; 0: unlimited
  uint64_t nodes = 0;
};

// Move-ordering statistics a search thread keeps from one search to the next
// of a game: history by side and from-to squares, continuation histories (how
// a quiet move, piece and to-square, fared after the move one and two plies
// before it), countermoves.
struct Histories {
  using ContHist = int16_t[PIECE_NB][64];
  int history[COLOR_NB][64][64] = {};
  ContHist cont[PIECE_NB * 64] = {};
  Move countermoves[PIECE_NB][64] = {};
  void age() {
    for (auto& side : history)
      for (auto& from : side)
        for (int& h : from) h /= 2;
    for (auto& table : cont)
      for (auto& piece : table)
        for (int16_t& h : piece) h = int16_t(h / 2);
  }
};

struct Worker {
  using ContHist = Histories::ContHist;
  Engine& engine;
  const SearchParams& sp;  // the engine's
  const Limits& limits;
  const Budget& budget;
  Position pos;
  int id;
  size_t root_history = 0;  // states in pos before the root

  std::atomic<uint64_t> nodes{0};
  int seldepth = 0;
  int completed_depth = 0;
  Value best_value = -VALUE_INFINITE;
  std::vector<Move> best_pv;
  // Multi-PV: the lines of the last completed iteration, best first; the
  // line searched now (pv_index) leaves out the root moves of those before it.
  std::vector<RootLine> lines;
  std::vector<Move> excluded;
  Move root_hint;
  int pv_index = 0;

  Move killers[MAX_PLY + 2][2] = {};
  Move singular_skip[MAX_PLY + 2] = {};  // the move a singular-extension search leaves out, by ply
  Histories& hist;  // kept from search to search of one game (Engine::new_game clears them)
  Piece moved[MAX_PLY + 2] = {};  // the piece that moved at each ply of the search (NO_PIECE: a null move)
  Square moved_to[MAX_PLY + 2] = {};
  ContHist* cont_at(int ply) const {  // the table for the move made at `ply`, or none
    return ply >= 0 && moved[ply] != NO_PIECE ? &hist.cont[moved[ply] * 64 + moved_to[ply]] : nullptr;
  }
  int quiet_history(Color us, Move m, int ply) const {
    const Piece pc = pos.piece_on(m.from());
    int h = hist.history[us][m.from()][m.to()];
    if (const ContHist* c = cont_at(ply - 1)) h += (*c)[pc][m.to()];
    if (const ContHist* c = cont_at(ply - 2)) h += (*c)[pc][m.to()];
    return h;
  }
  // The late-move reduction table's plies for a move number at a depth.
  int base_reduction(int depth, int move_number) const {
    return engine.reductions_[std::min(depth, 63)][std::min(move_number, 63)];
  }
  Value static_evals[MAX_PLY + 2] = {};
  // The learned evaluation's accumulators by ply, brought up to date only
  // when a node evaluates: each move records its changes (deltas), and the
  // accumulator of the nearest ply computed before is updated from there.
  const nnue::Network* net = nullptr;
  std::unique_ptr<nnue::Accumulator[]> accs;
  std::unique_ptr<nnue::Delta[]> deltas;
  bool acc_computed[MAX_PLY + 3] = {};
  void made_move(int child_ply, bool null_move = false) {
    engine.tt_.prefetch(pos.full_key());
    if (!net) return;
    deltas[child_ply] = null_move ? nnue::Delta{} : nnue::last_move_delta(pos);
    acc_computed[child_ply] = false;
  }
  Value eval(int ply) {
    if (!net || !pos.pieces(PAWN) || pos.count().running() || !net->plays(pos.variant())) return evaluate(pos);
    int from = ply;
    while (from > 0 && !acc_computed[from]) --from;
    for (int p = from + 1; p <= ply; ++p) {
      nnue::update(*net, accs[p - 1], deltas[p], accs[p]);
      acc_computed[p] = true;
    }
    if (nnue::checking_search_accumulators()) [[unlikely]] check_accumulator(ply);
    const Value v = nnue::evaluate(*net, accs[ply], pos.side_to_move(), nnue::bucket_of(pos));
    if (!net->residual) return v;
    return std::clamp(evaluate(pos) + v, -(VALUE_MATE_IN_MAX_PLY - 1), VALUE_MATE_IN_MAX_PLY - 1);
  }
  void check_accumulator(int ply) const {
    nnue::Accumulator fresh;
    nnue::refresh(*net, pos, fresh);
    auto& checks = nnue::accumulator_checks();
    ++checks.checked;
    if (std::memcmp(&fresh, &accs[ply], sizeof fresh) != 0) ++checks.differed;
  }
  Move pv[MAX_PLY + 2][MAX_PLY + 2] = {};
  int pv_length[MAX_PLY + 2] = {};

  Worker(Engine& e, const Limits& l, const Budget& b, const Position& root, int i, Histories& h)
      : engine(e), sp(e.params_), limits(l), budget(b), pos(root), id(i), root_history(root.history_size()),
        hist(h), net(e.network(root.variant())) {
    if (net) {
      accs.reset(new nnue::Accumulator[MAX_PLY + 3]);
      deltas.reset(new nnue::Delta[MAX_PLY + 3]);
      nnue::refresh(*net, pos, accs[0]);
      acc_computed[0] = true;
    }
  }

  bool stopped() const { return engine.stop_.load(std::memory_order_relaxed) && completed_depth > 0; }
  void count_node() { nodes.store(nodes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

  void check_time();
  bool is_repetition(int ply) const;
  bool draw_by_rule(int ply) const;
  Value mated_value(int ply) const;
  bool last_move_of_count(int ply, Value& v);
  bool probe_tables(int ply, Value& v);
  Value search(int depth, Value alpha, Value beta, int ply, bool cut_node);
  Value qsearch(Value alpha, Value beta, int ply, int qply = 0);
  void score_moves(const MoveList& list, int scores[], Move tt_move, int ply) const;
  void update_quiet_stats(Move best, const Move* quiets, int quiet_count, int depth, int ply);
  void iterate(const std::function<void(const Info&)>* on_info, const std::vector<Worker*>& all);
};

void Worker::check_time() {
  if (id != 0) return;
  if (budget.nodes) {
    if (nodes.load(std::memory_order_relaxed) >= budget.nodes) engine.stop();
    return;
  }
  if (engine.ponder_.load(std::memory_order_relaxed) || !budget.maximum) return;
  if (elapsed_ms(budget.start) >= budget.maximum) engine.stop();
}

// Repetition within the search is a draw at once; before the root, the
// position must have occurred twice already (the third occurrence).
bool Worker::is_repetition(int ply) const {
  size_t n = pos.history_size();
  int reversible = pos.reversible_plies();
  uint64_t key = pos.key();
  int seen = 0;
  for (int back = 4; back <= reversible && size_t(back) < n; back += 2) {
    if (pos.state(n - 1 - back).key != key) continue;
    if (back <= ply) return true;  // repeated inside the search tree
    if (++seen >= 2) return true;
  }
  return false;
}

// Draws that need no search: bare kings, material that can never mate (Ouk
// Chatrang), repetition, and a count that has run out (unless the last move mated).
bool Worker::draw_by_rule(int ply) const {
  if (popcount(pos.pieces()) == 2) return true;
  if (pos.variant() == Variant::Ouk && !pos.pieces(PAWN) && popcount(pos.pieces()) <= 6 &&
      !can_checkmate(pos, WHITE) && !can_checkmate(pos, BLACK))
    return true;
  if (pos.count().expired) return !(pos.in_check() && count_legal(pos) == 0);
  return is_repetition(ply);
}

// The score of the side to move when it is checkmated. D9: a declared count
// still running when its own side mates makes the game a draw.
Value Worker::mated_value(int ply) const {
  const Count& c = pos.count();
  if (pos.counting() == Counting::Declaration && c.running() && c.side != pos.side_to_move())
    return VALUE_DRAW;
  return mated_in(ply);
}

// With the count at its limit, the hunter has one last move: a mate wins,
// anything else draws. The node's value is exact, without search.
bool Worker::last_move_of_count(int ply, Value& v) {
  const Count& c = pos.count();
  if (!c.running() || c.expired || c.n < c.limit || c.side == pos.side_to_move()) return false;
  MoveList list;
  generate_legal(pos, list);
  if (list.size == 0) {
    v = pos.in_check() ? mated_value(ply) : VALUE_DRAW;
    return true;
  }
  v = VALUE_DRAW;
  for (Move m : list) {
    pos.do_move(m);
    bool mate = pos.in_check() && count_legal(pos) == 0;
    pos.undo_move();
    if (mate) {
      v = mate_in(ply + 1);
      break;
    }
  }
  return true;
}

// Endgame tables (a bare king against king + 1 to 3 pieces, no pawns): the
// node's exact value. The hunter's mate counts only if it comes before the
// bare king's count runs out: the bare king moves plies / 2 times before the
// mate, and may move limit - n times before the hunter's one last move
// (docs/rules.md §5).
bool Worker::probe_tables(int ply, Value& v) {
  if (pos.pieces(PAWN) || popcount(pos.pieces()) > 5) return false;
  DtmProbe p;
  if (!probe_dtm(pos, p, false)) return false;  // builds the table on first use, in the background
  if (p.wdl == Wdl::Draw) {
    v = VALUE_DRAW;
    return true;
  }
  if (p.wdl == Wdl::Loss && p.plies == 0) {  // checkmated now
    v = mated_value(ply);
    return true;
  }
  const Color defender = p.wdl == Wdl::Win ? ~pos.side_to_move() : pos.side_to_move();
  Count c = pos.count();
  if (c.running() && c.side != defender) return false;
  if (!c.running()) {
    // Declaration mode: the bare king is taken to count from its first chance,
    // that is before its last move when the hunter is to move.
    c = qualifying_count(pos, defender);
    if (pos.side_to_move() != defender) ++c.n;
  }
  if (c.running() && (c.expired || p.plies / 2 > c.limit - c.n)) {
    v = VALUE_DRAW;
    return true;
  }
  // A mate beyond MAX_PLY still outranks every evaluation and, faster first,
  // every slower one; it does not depend on the ply, so the TT keeps it as is.
  const int to_mate = ply + p.plies;
  const Value mate = to_mate < MAX_PLY ? mate_in(to_mate) : VALUE_MATE_IN_MAX_PLY - 1 - p.plies;
  v = p.wdl == Wdl::Win ? mate : -mate;
  return true;
}

void Worker::score_moves(const MoveList& list, int scores[], Move tt_move, int ply) const {
  Move prev = pos.last_move();
  Move counter = prev.is_none() ? Move() : hist.countermoves[pos.piece_on(prev.to())][prev.to()];
  Color us = pos.side_to_move();
  for (int i = 0; i < list.size; ++i) {
    Move m = list.moves[i];
    int& s = scores[i];
    if (m == tt_move) s = 1 << 30;
    else if (is_capture(pos, m) || m.is_promotion()) {
      s = 16 * SEE_VALUE[type_of(pos.piece_on(m.to()))] - SEE_VALUE[type_of(pos.piece_on(m.from()))] / 16 +
          (m.is_promotion() ? 2000 : 0);
      s += see(pos, m) >= 0 ? (1 << 28) : -(1 << 26);  // a losing capture comes after the quiet moves
    } else if (m == killers[ply][0]) s = (1 << 27) + 2;
    else if (m == killers[ply][1]) s = (1 << 27) + 1;
    else if (m == counter) s = 1 << 27;
    else s = quiet_history(us, m, ply);
  }
}

// Moves are taken best first by selection: most nodes cut after a few moves.
static Move pick_next(MoveList& list, int scores[], int i) {
  int best = i;
  for (int j = i + 1; j < list.size; ++j)
    if (scores[j] > scores[best]) best = j;
  std::swap(list.moves[i], list.moves[best]);
  std::swap(scores[i], scores[best]);
  return list.moves[i];
}

void Worker::update_quiet_stats(Move best, const Move* quiets, int quiet_count, int depth, int ply) {
  Color us = pos.side_to_move();
  int bonus = std::min(depth * depth, sp.history_max);
  auto update = [&](Move m, int b) {
    int& h = hist.history[us][m.from()][m.to()];
    h += b - h * std::abs(b) / 16384;
  };
  auto update_cont = [&](Move m, int b) {
    const Piece pc = pos.piece_on(m.from());
    for (int back : {1, 2})
      if (ContHist* c = cont_at(ply - back)) {
        int16_t& h = (*c)[pc][m.to()];
        h = int16_t(h + b - h * std::abs(b) / 16384);
      }
  };
  update(best, bonus);
  update_cont(best, bonus);
  for (int i = 0; i < quiet_count; ++i)
    if (quiets[i] != best) {
      update(quiets[i], -bonus);
      update_cont(quiets[i], -bonus);
    }
  if (killers[ply][0] != best) {
    killers[ply][1] = killers[ply][0];
    killers[ply][0] = best;
  }
  if (Move prev = pos.last_move(); !prev.is_none())
    hist.countermoves[pos.piece_on(prev.to())][prev.to()] = best;
}

Value Worker::qsearch(Value alpha, Value beta, int ply, int qply) {
  pv_length[ply] = ply;  // a line ends here: the parent's PV takes nothing stale from this ply
  count_node();
  if ((nodes.load(std::memory_order_relaxed) & 1023) == 0) check_time();
  if (stopped()) return VALUE_ZERO;
  seldepth = std::max(seldepth, ply);
  if (draw_by_rule(ply)) return VALUE_DRAW;
  if (Value v; last_move_of_count(ply, v)) return v;
  if (Value v; probe_tables(ply, v)) return v;
  const bool in_check = pos.in_check();
  if (ply >= MAX_PLY) return in_check ? VALUE_DRAW : eval(ply);

  const uint64_t key = pos.full_key();
  bool tt_hit;
  TTEntry* tte = engine.tt_.probe(key, tt_hit);
  Value tt_value = tt_hit ? value_from_tt(tte->value, ply) : VALUE_NONE;
  if (tt_hit && beta - alpha == 1 && tte->bound() != BOUND_NONE &&
      (tte->bound() & (tt_value >= beta ? BOUND_LOWER : BOUND_UPPER)))
    return tt_value;

  Value best_value = -VALUE_INFINITE, stand_pat = VALUE_NONE;
  if (!in_check) {
    stand_pat = tt_hit && tte->eval != VALUE_NONE ? tte->eval : eval(ply);
    if (stand_pat >= beta) return stand_pat;
    alpha = std::max(alpha, stand_pat);
    best_value = stand_pat;
  }

  MoveList list;
  generate_legal(pos, list);
  if (list.size == 0) return in_check ? mated_value(ply) : VALUE_DRAW;
  int scores[MAX_MOVES];
  score_moves(list, scores, tt_hit ? Move::from_raw(tte->move) : Move(), MAX_PLY + 1);
  Move best_move;
  for (int i = 0; i < list.size; ++i) {
    Move m = pick_next(list, scores, i);
    if (!in_check) {
      if (!is_capture(pos, m) && !m.is_promotion()) {
        // At the first ply, a quiet move that gives check and loses nothing by SEE (qs_checks).
        if (!sp.qs_checks || qply > 0 || !quiet_gives_check(pos, m) || see(pos, m) < 0) continue;
      } else {
        if (stand_pat + SEE_VALUE[type_of(pos.piece_on(m.to()))] + sp.delta_margin <= alpha && !m.is_promotion())
          continue;  // delta pruning
        // score_moves ranks a capture that loses material by SEE below zero; the table's move it does not weigh.
        if (scores[i] == 1 << 30 ? see(pos, m) < 0 : scores[i] < 0) continue;
      }
    }
    pos.do_move(m);
    made_move(ply + 1);
    Value v = -qsearch(-beta, -alpha, ply + 1, qply + 1);
    pos.undo_move();
    if (stopped()) return VALUE_ZERO;
    if (v > best_value) {
      best_value = v;
      if (v > alpha) {
        best_move = m;
        if (v >= beta) break;
        alpha = v;
      }
    }
  }
  if (best_value == -VALUE_INFINITE) best_value = alpha;  // in check, every evasion pruned: cannot happen
  engine.tt_.store(tte, key, value_to_tt(best_value, ply), stand_pat,
                   best_value >= beta ? BOUND_LOWER : BOUND_UPPER, 0, best_move.raw());
  return best_value;
}

Value Worker::search(int depth, Value alpha, Value beta, int ply, bool cut_node) {
  const bool pv_node = beta - alpha > 1;
  const bool root = ply == 0;
  if (depth <= 0) return qsearch(alpha, beta, ply);
  pv_length[ply] = ply;
  count_node();
  if ((nodes.load(std::memory_order_relaxed) & 1023) == 0) check_time();
  if (stopped()) return VALUE_ZERO;
  seldepth = std::max(seldepth, ply);

  const bool in_check = pos.in_check();
  if (!root) {
    if (draw_by_rule(ply)) return VALUE_DRAW;
    if (Value v; last_move_of_count(ply, v)) return v;
    if (Value v; probe_tables(ply, v)) {
      const uint64_t key = pos.full_key();
      bool tt_hit;
      TTEntry* tte = engine.tt_.probe(key, tt_hit);
      engine.tt_.store(tte, key, value_to_tt(v, ply), VALUE_NONE, BOUND_EXACT, depth, 0);
      return v;
    }
    if (ply >= MAX_PLY) return in_check ? VALUE_DRAW : eval(ply);
    alpha = std::max(mated_in(ply), alpha);  // mate distance pruning
    beta = std::min(mate_in(ply + 1), beta);
    if (alpha >= beta) return alpha;
  }

  const uint64_t key = pos.full_key();
  bool tt_hit;
  TTEntry* tte = engine.tt_.probe(key, tt_hit);
  const Value tt_value = tt_hit ? value_from_tt(tte->value, ply) : VALUE_NONE;
  // (read now: the searches below, the null move's first, may put another position in that slot)
  const int tt_depth = tt_hit ? tte->depth : 0;
  const Bound tt_bound = tt_hit ? tte->bound() : BOUND_NONE;
  Move tt_move = tt_hit ? Move::from_raw(tte->move) : Move();
  if (root && !root_hint.is_none()) tt_move = root_hint;
  const Move skipped = singular_skip[ply];  // (this node is a singular-extension search)
  if (!pv_node && skipped.is_none() && tt_hit && tt_depth >= depth && tt_bound != BOUND_NONE &&
      (tt_bound & (tt_value >= beta ? BOUND_LOWER : BOUND_UPPER)))
    return tt_value;

  Value static_eval = VALUE_NONE;
  if (!in_check) static_eval = tt_hit && tte->eval != VALUE_NONE ? tte->eval : eval(ply);
  static_evals[ply] = static_eval;
  const Value raw_eval = static_eval;  // what the table keeps
  if (sp.tt_eval && !in_check && tt_value != VALUE_NONE && std::abs(tt_value) < VALUE_MATE_IN_MAX_PLY &&
      (tt_bound & (tt_value > static_eval ? BOUND_LOWER : BOUND_UPPER)))
    static_eval = tt_value;
  const bool improving = !in_check && ply >= 2 && static_evals[ply - 2] != VALUE_NONE &&
                         raw_eval > static_evals[ply - 2];
  const Color us = pos.side_to_move();

  if (!pv_node && !in_check) {
    // Reverse futility: far above beta at low depth, the opponent will not recover.
    if (depth <= sp.rfp_depth && static_eval - sp.rfp_margin * (depth - improving) >= beta &&
        std::abs(beta) < VALUE_MATE_IN_MAX_PLY)
      return static_eval;
    // Razoring: far below alpha at low depth, only a capture could save the node.
    if (depth <= sp.razor_depth && static_eval + sp.razor_margin * depth * depth < alpha) {
      const Value v = qsearch(alpha - 1, alpha, ply);
      if (stopped()) return VALUE_ZERO;
      if (v < alpha) return v;
    }
    // Null move, not where zugzwang is likely: it needs pawns on the board,
    // a piece besides met-movers, and no running count.
    if (depth >= sp.nmp_depth && static_eval >= beta && skipped.is_none() && !pos.last_move().is_none() &&
        pos.pieces(PAWN) &&
        (pos.pieces(us, ROOK) | pos.pieces(us, KNIGHT) | pos.pieces(us, KHON)) &&
        !pos.count().running()) {
      int r = sp.nmp_base + depth / sp.nmp_depth_div + std::min((static_eval - beta) / sp.nmp_eval_div, 2);
      moved[ply] = NO_PIECE;
      pos.do_null_move();
      made_move(ply + 1, true);
      Value v = -search(depth - r, -beta, -beta + 1, ply + 1, !cut_node);
      pos.undo_null_move();
      if (stopped()) return VALUE_ZERO;
      if (v >= beta) return v >= VALUE_MATE_IN_MAX_PLY ? beta : v;
    }
  }

  MoveList list;
  generate_legal(pos, list);
  if (list.size == 0) return in_check ? mated_value(ply) : VALUE_DRAW;
  int scores[MAX_MOVES];
  score_moves(list, scores, tt_move, ply);
  killers[ply + 1][0] = killers[ply + 1][1] = Move();

  Value best_value = -VALUE_INFINITE;
  Move best_move;
  Move quiets[MAX_MOVES];
  int quiet_count = 0, move_count = 0;
  const Value original_alpha = alpha;

  for (int i = 0; i < list.size; ++i) {
    Move m = pick_next(list, scores, i);
    if (root && std::find(excluded.begin(), excluded.end(), m) != excluded.end()) continue;
    if (m == skipped) continue;
    const bool quiet = !is_capture(pos, m) && !m.is_promotion();
    if (!root && best_value > -VALUE_MATE_IN_MAX_PLY) {
      if (!quiet && depth <= sp.see_depth && see(pos, m) < -sp.see_margin * depth) continue;
    }
    // The quiet-history score is taken before the move is made (it reads the mover's square).
    const int move_history = quiet ? quiet_history(us, m, ply) : 0;
    // Singular extension: the table's move, found good at nearly this depth, is searched a
    // ply deeper when every other move, searched at half the depth, falls short of its value
    // by a margin; when even without it the node clears beta by that margin, it cuts here.
    bool singular = false;
    if (sp.se_depth > 0 && !root && depth >= sp.se_depth && m == tt_move && skipped.is_none() && tt_hit &&
        (tt_bound & BOUND_LOWER) && tt_depth >= depth - 3 && std::abs(tt_value) < VALUE_MATE_IN_MAX_PLY) {
      const Value singular_beta = tt_value - sp.se_margin * depth;
      singular_skip[ply] = m;
      const Value v = search((depth - 1) / 2, singular_beta - 1, singular_beta, ply, cut_node);
      singular_skip[ply] = Move();
      if (stopped()) return VALUE_ZERO;
      if (v < singular_beta) singular = true;
      else if (!pv_node && singular_beta >= beta) return singular_beta;
    }
    const bool see_loses = sp.check_see && (!quiet || quiet_gives_check(pos, m)) && see(pos, m) < 0;
    moved[ply] = pos.piece_on(m.from());
    moved_to[ply] = m.to();
    pos.do_move(m);
    made_move(ply + 1);
    const bool gives_check = pos.in_check();
    // Shallow pruning of quiet moves that neither check nor escape check.
    if (!root && quiet && !in_check && !gives_check && best_value > -VALUE_MATE_IN_MAX_PLY) {
      const int futility_depth =
          sp.fut_lmr ? std::max(depth - 1 - base_reduction(depth, move_count + 1), 0) : depth;
      if ((depth <= sp.lmp_depth && move_count >= sp.lmp_base + depth * depth / (2 - improving)) ||
          (futility_depth <= sp.fut_depth && static_eval + sp.fut_base + sp.fut_margin * futility_depth <= alpha)) {
        pos.undo_move();
        continue;
      }
    }
    ++move_count;
    const bool check_extended = gives_check && depth >= sp.check_ext_depth && !see_loses;
    const int extension = (check_extended || singular) && ply < 2 * (completed_depth + 2) ? 1 : 0;
    const int new_depth = depth - 1 + extension;
    Value v;
    if (move_count == 1) {
      v = -search(new_depth, -beta, -alpha, ply + 1, !pv_node && !cut_node);
    } else {
      int r = 0;
      if (depth >= 3 && quiet && (sp.lmr_checks || (!gives_check && !in_check))) {
        r = base_reduction(depth, move_count);
        r += !pv_node + cut_node - improving;
        r -= move_history / sp.lmr_history;
        r = std::clamp(r, 0, new_depth - 1);
      }
      v = -search(new_depth - r, -alpha - 1, -alpha, ply + 1, true);
      if (v > alpha && r > 0) v = -search(new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
      if (pv_node && v > alpha && v < beta) v = -search(new_depth, -beta, -alpha, ply + 1, false);
    }
    pos.undo_move();
    if (stopped()) return VALUE_ZERO;

    if (v > best_value) {
      best_value = v;
      if (v > alpha) {
        best_move = m;
        if (pv_node) {
          pv[ply][ply] = m;
          for (int j = ply + 1; j < pv_length[ply + 1]; ++j) pv[ply][j] = pv[ply + 1][j];
          pv_length[ply] = std::max(pv_length[ply + 1], ply + 1);
        }
        if (v >= beta) {
          if (quiet) update_quiet_stats(m, quiets, quiet_count, depth, ply);
          break;
        }
        alpha = v;
      }
    }
    if (quiet && quiet_count < MAX_MOVES) quiets[quiet_count++] = m;
  }
  if (move_count == 0) best_value = alpha;  // every move pruned (only at low depth)

  // A later line of a multi-PV root is not the position's best: the table keeps the first.
  if (root && pv_index > 0) return best_value;
  if (!skipped.is_none()) return best_value;  // a search without the best move: not the position's value
  Bound bound = best_value >= beta ? BOUND_LOWER : best_value > original_alpha ? BOUND_EXACT : BOUND_UPPER;
  engine.tt_.store(tte, key, value_to_tt(best_value, ply), raw_eval, bound, depth, best_move.raw());
  return best_value;
}

void Worker::iterate(const std::function<void(const Info&)>* on_info, const std::vector<Worker*>& all) {
  const int max_depth = limits.depth ? std::min(limits.depth, MAX_PLY - 1) : MAX_PLY - 1;
  const int multipv = std::clamp(limits.multipv, 1, std::max(1, count_legal(pos)));
  std::vector<RootLine> current;
  for (int depth = 1 + (id % 2); depth <= max_depth; ++depth) {
    current.clear();
    excluded.clear();
    for (pv_index = 0; pv_index < multipv; ++pv_index) {
      seldepth = 0;
      // Each line starts from its own score and move of the iteration before.
      const bool known = size_t(pv_index) < lines.size();
      const Value previous = known ? lines[pv_index].score : VALUE_ZERO;
      root_hint = known && !lines[pv_index].pv.empty() ? lines[pv_index].pv[0] : Move();
      Value alpha = -VALUE_INFINITE, beta = VALUE_INFINITE, delta = sp.aspiration, v;
      if (depth >= 5 && known) {
        alpha = std::max(previous - delta, -VALUE_INFINITE);
        beta = std::min(previous + delta, VALUE_INFINITE);
      }
      for (;;) {
        v = search(depth, alpha, beta, 0, false);
        if (stopped()) break;
        if (v <= alpha) {
          beta = (alpha + beta) / 2;
          alpha = std::max(v - delta, -VALUE_INFINITE);
        } else if (v >= beta) {
          beta = std::min(v + delta, VALUE_INFINITE);
        } else {
          break;
        }
        delta += delta / 2;
      }
      if (stopped()) break;
      RootLine line{v, std::vector<Move>(pv[0], pv[0] + pv_length[0])};
      if (line.pv.empty()) break;  // every move pruned: cannot happen at the root
      excluded.push_back(line.pv[0]);
      // Kept best first; a later line can score above an earlier one at this depth.
      auto at = std::find_if(current.begin(), current.end(), [&](const RootLine& l) { return l.score < v; });
      current.insert(at, std::move(line));
    }
    if (stopped() || current.empty()) break;
    pv_index = 0;
    completed_depth = depth;
    lines = current;
    best_value = lines[0].score;
    best_pv = lines[0].pv;

    if (id != 0) continue;
    if (on_info && *on_info) {
      uint64_t total = 0;
      for (Worker* w : all) total += w->nodes.load(std::memory_order_relaxed);
      for (size_t i = 0; i < lines.size(); ++i) {
        Info info;
        info.depth = depth;
        info.seldepth = seldepth;
        info.multipv = int(i) + 1;
        info.score = lines[i].score;
        info.nodes = total;
        info.ms = elapsed_ms(budget.start);
        info.hashfull = engine.tt_.hashfull();
        info.pv = lines[i].pv;
        (*on_info)(info);
      }
    }
    if (limits.mate && best_value >= mate_in(2 * limits.mate)) break;
    if (budget.optimum && !limits.movetime && !engine.ponder_.load(std::memory_order_relaxed) &&
        elapsed_ms(budget.start) >= budget.optimum * 6 / 10)
      break;
  }
}

Engine::Engine(nnue::Networks nets) : nets_(std::move(nets)) {
  set_search_params(params_);
  tt_.resize(16);
}

void Engine::set_search_params(const SearchParams& p) {
  params_ = p;
  for (int d = 1; d < 64; ++d)
    for (int m = 1; m < 64; ++m)
      reductions_[d][m] = int(p.lmr_base / 100.0 + std::log(d) * std::log(m) * (100.0 / p.lmr_div));
}

Engine::~Engine() = default;

void Engine::new_game() {
  tt_.clear();
  for (auto& h : histories_) h = std::make_unique<Histories>();
}

TimeShare time_share(int64_t time, int64_t inc, int movestogo, int64_t overhead) {
  // Without the reserve a long game (Makruk's and Ouk's often pass move 100)
  // wore the clock down to what one move's maximum leaves: at 10 s + 0.1 s,
  // 0.14 s from move 76 on, where one slow reply loses on time.
  constexpr int64_t limit = int64_t(1) << 40;  // ms, 35 years: whatever UCI sends, no sum overflows
  time = std::clamp<int64_t>(time, 0, limit);
  inc = std::clamp<int64_t>(inc, 0, limit);
  const int64_t reserve = std::min(2 * inc, time / 2);
  const int64_t left = std::max<int64_t>(1, time - overhead - reserve);
  const int moves = movestogo ? std::min(movestogo, 40) : 30;
  TimeShare share;
  share.optimum = std::max<int64_t>(1, std::min(left / moves + inc * 3 / 4, left / 2));
  share.maximum = std::max<int64_t>(1, std::min(share.optimum * 4, left * 3 / 4));
  return share;
}

SearchResult Engine::search(const Position& root, const Limits& limits,
                            const std::function<void(const Info&)>& on_info) {
  stop_.store(false);
  ponder_.store(limits.ponder);
  tt_.new_search();

  SearchResult result;
  MoveList legal;
  generate_legal(root, legal);
  if (legal.size == 0) return result;

  Budget budget;
  budget.start = Clock::now();
  budget.nodes = limits.nodes;
  const Color us = root.side_to_move();
  if (limits.movetime) {
    budget.optimum = budget.maximum = std::max<int64_t>(1, limits.movetime - move_overhead_);
  } else if (limits.time[us] && !limits.infinite) {
    const TimeShare share = time_share(limits.time[us], limits.inc[us], limits.movestogo, move_overhead_);
    budget.optimum = share.optimum;
    budget.maximum = share.maximum;
  }

  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<Worker*> all;
  while (histories_.size() < size_t(threads_)) histories_.push_back(std::make_unique<Histories>());
  for (auto& h : histories_) h->age();  // what the last search learnt counts half
  for (int i = 0; i < threads_; ++i) {
    workers.push_back(std::make_unique<Worker>(*this, limits, budget, root, i, *histories_[i]));
    all.push_back(workers.back().get());
  }
  std::vector<std::thread> helpers;
  for (int i = 1; i < threads_; ++i)
    helpers.emplace_back([w = all[i], &all] { w->iterate(nullptr, all); });
  all[0]->iterate(&on_info, all);
  // With "go infinite" or while pondering, the best move waits for stop.
  while ((limits.infinite || ponder_.load()) && !stop_.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop();
  for (auto& t : helpers) t.join();

  Worker& main = *all[0];
  result.pv = main.best_pv;
  result.best = result.pv.empty() ? legal.moves[0] : result.pv[0];
  if (result.pv.size() > 1) result.ponder = result.pv[1];
  result.score = main.best_value;
  result.lines = main.lines;
  if (result.lines.empty() && !result.best.is_none()) result.lines.push_back({result.score, {result.best}});
  result.depth = main.completed_depth;
  for (Worker* w : all) result.nodes += w->nodes.load();
  return result;
}

}  // namespace makruk::engine
