#include "openings.h"

#include <cstdlib>
#include <ostream>
#include <random>
#include <set>

#include "core/game.h"
#include "core/notation.h"
#include "search.h"

namespace makruk::engine {

int make_openings(const OpeningsOptions& o, std::ostream& out) {
  Engine engine;
  std::mt19937_64 rng(o.seed);
  std::set<uint64_t> seen;
  int written = 0;
  for (int attempt = 0; written < o.count && attempt < o.count * 200; ++attempt) {
    std::string error;
    auto game = Game::create(o.variant, Counting::Automatic, "", &error);
    std::string line = "startpos moves";
    for (int ply = 0; ply < o.plies && !game->over(); ++ply) {
      MoveList legal = game->legal_moves();
      Move m = legal.moves[rng() % legal.size];
      line += ' ';
      line += move_to_string(m);
      game->play(m, &error);
    }
    if (game->over() || !seen.insert(game->position().key()).second) continue;
    engine.new_game();
    Limits limits;
    limits.depth = o.depth;
    SearchResult r = engine.search(game->position(), limits);
    if (o.min_score ? r.score < *o.min_score || r.score > o.max_score : std::abs(r.score) > o.max_score) continue;
    out << line << "  # " << score_to_uci(r.score) << "\n";
    ++written;
  }
  return written;
}

}  // namespace makruk::engine
