#include "levels.h"

#include <algorithm>
#include <cmath>

#include "core/count.h"
#include "core/movegen.h"
#include "core/notation.h"

namespace makruk::engine {

LevelSettings level_settings(int level) {
  static constexpr LevelSettings TABLE[MAX_LEVEL + 1] = {
      {1, 0, 0, 0},            // unused
      {1, 400, 260, 450},      // 1: sees captures, misses most tactics
      {2, 1500, 180, 320},     // 2
      {3, 5000, 120, 220},     // 3
      {4, 15000, 80, 150},     // 4
      {6, 60000, 45, 100},     // 5
      {7, 150000, 25, 60},     // 6
      {9, 500000, 12, 35},     // 7
      {0, 0, 0, 0},            // 8: full strength
  };
  return TABLE[std::clamp(level, MIN_LEVEL, MAX_LEVEL)];
}

int level_from_elo(int elo) {
  int span = (MAX_ELO - MIN_ELO) / (MAX_LEVEL - 1);
  return std::clamp(1 + (std::clamp(elo, MIN_ELO, MAX_ELO) - MIN_ELO + span / 2) / span, MIN_LEVEL,
                    MAX_LEVEL);
}

bool allows_mate_in_one(const Position& pos, Move m) {
  Position p = pos.without_history();
  p.do_move(m);
  MoveList replies;
  generate_legal(p, replies);
  for (Move r : replies) {
    p.do_move(r);
    bool mate = p.in_check() && count_legal(p) == 0;
    p.undo_move();
    if (mate) return true;
  }
  return false;
}

SearchResult play_at_level(Engine& engine, const Position& pos, int level, const Limits& limits,
                           std::mt19937_64& rng) {
  LevelSettings s = level_settings(level);
  // A pawnless ending is played precisely at every level: the count leaves no
  // room for wandering, and a weak level that cannot convert a won ending only
  // draws by the count (both sides alike), which hides the levels' difference.
  const bool pawnless = !pos.pieces(PAWN);
  if (pawnless && s.depth) {
    s.depth = std::max(s.depth, ENDGAME_MIN_DEPTH);
    s.nodes = std::max(s.nodes, ENDGAME_MIN_NODES);
    s.temperature = 0;
  }
  Limits l = limits;
  if (s.depth) l.depth = l.depth ? std::min(l.depth, s.depth) : s.depth;
  if (s.nodes) l.nodes = l.nodes ? std::min(l.nodes, s.nodes) : s.nodes;
  SearchResult best = engine.search(pos, l);
  if (!s.temperature || best.best.is_none()) return best;

  // Score every root move with a search one ply shallower from its child.
  MoveList legal;
  generate_legal(pos, legal);
  struct Candidate {
    Move move;
    Value score;
  };
  std::vector<Candidate> candidates;
  Limits child = l;
  child.depth = std::max(1, (l.depth ? l.depth : 1) - 1);
  child.nodes = l.nodes ? std::max<uint64_t>(50, l.nodes / legal.size) : 0;
  for (Move m : legal) {
    Position p = pos;
    p.do_move(m);
    Value v;
    MoveList replies;
    generate_legal(p, replies);
    if (replies.size == 0) v = p.in_check() ? VALUE_MATE : VALUE_DRAW;
    else v = -engine.search(p, child).score;
    if (allows_mate_in_one(pos, m)) v = std::min(v, -VALUE_MATE_IN_MAX_PLY);
    candidates.push_back({m, v});
  }
  const Candidate& first = *std::max_element(candidates.begin(), candidates.end(),
                                             [](auto& a, auto& b) { return a.score < b.score; });
  const Value top = first.score;
  // A mate that is seen is played: the temperature would wander between mates
  // of every length.
  auto play = [&](const Candidate& c) {
    if (c.move != best.best) {
      best.best = c.move;
      best.ponder = Move();
      best.score = c.score;
      best.pv = {c.move};
    }
    return best;
  };
  if (top >= VALUE_MATE_IN_MAX_PLY) return play(first);
  // Keep moves within the level's tolerance; a move that allows mate stays out
  // unless every move does.
  std::vector<double> weights;
  for (auto& c : candidates) {
    bool ok = c.score >= top - s.max_loss &&
              (c.score > -VALUE_MATE_IN_MAX_PLY || top <= -VALUE_MATE_IN_MAX_PLY);
    weights.push_back(ok ? std::exp(double(c.score - top) / s.temperature) : 0.0);
  }
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  return play(candidates[pick(rng)]);
}

std::vector<std::string> level_actions(Engine& engine, const Position& root, int level, int max_ms, bool answer_offer,
                                       Color cpu, std::mt19937_64& rng) {
  std::vector<std::string> actions;
  Position pos = root;
  if (answer_offer) {
    const std::string me = cpu == WHITE ? "w" : "b";
    Limits probe;
    probe.depth = 6;
    probe.movetime = std::max(1, max_ms / 3);
    const int score = engine.search(pos, probe).score;
    const int mine = pos.side_to_move() == cpu ? score : -score;
    // Glad of a draw when clearly worse, or level once a count runs.
    if (mine <= -50 || (pos.count().running() && mine <= 50)) return {"accept:" + me};
    actions.push_back("decline:" + me);
    if (pos.side_to_move() != cpu) return actions;  // the other side moves next
  }
  const Color us = pos.side_to_move();
  const std::string side = us == WHITE ? "w" : "b";
  if (pos.counting() == Counting::Declaration) {
    const Count& c = pos.count();
    if (!c.running()) {
      // The weaker side gains by counting: start a count as soon as it qualifies.
      Count q = qualifying_count(pos, us);
      if (q.running()) {
        pos.set_count(q);
        actions.push_back("count:" + side);
      }
    } else if (c.side == us) {
      // Counting, but winning: stop, since a mate while counting only draws (D9).
      Position stopped = pos;
      stopped.set_count(Count{});
      Limits probe;
      probe.depth = 6;
      probe.movetime = std::max(1, max_ms / 4);
      if (engine.search(stopped, probe).score >= 400) {
        pos = stopped;
        actions.push_back("stop:" + side);
      }
    }
  }
  Limits limits;
  limits.movetime = std::max(1, std::min(max_ms, level >= MAX_LEVEL ? 1500 : 1000));
  SearchResult r = play_at_level(engine, pos, level, limits, rng);
  if (!r.best.is_none()) actions.push_back(move_to_string(r.best));
  return actions;
}

}  // namespace makruk::engine
