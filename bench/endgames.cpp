// Endgame conversion benchmark: random positions of a bare king against king +
// the given pieces, the engine on both sides at a fixed number of nodes a
// move, played out under the rules core's referee. Prints how many were mated
// before the count ran out, and the unconverted ones. With EGTB_DIR the engine
// reads three-piece tables from there (makruk egtb --save), and the table
// says how many of the positions are won within the count at all; NODES 0
// then counts those without playing the games out.
//
// Usage: endgames [MATERIAL (White's FEN letters R S N M, default NMM)] [POSITIONS (40)] [NODES (20000)] [SEED (1)]
//                 [EGTB_DIR]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "core/game.h"
#include "engine/egtb.h"
#include "engine/search.h"

using namespace makruk;
using namespace makruk::engine;

int main(int argc, char** argv) {
  const std::string material = argc > 1 ? argv[1] : "NMM";
  const int positions = argc > 2 ? std::atoi(argv[2]) : 40;
  const uint64_t nodes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 20000;
  std::mt19937_64 rng(argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1);
  const bool letters = material.find_first_not_of("RSNM") == std::string::npos;
  if (material.empty() || material.size() > 6 || !letters || positions <= 0 || (nodes == 0 && argc <= 5)) {
    std::fprintf(stderr, "usage: endgames [MATERIAL] [POSITIONS] [NODES] [SEED] [EGTB_DIR]\n");
    return 2;
  }
  if (argc > 5) {
    if (engine::egtb_set_path(argv[5]) == 0) {
      std::fprintf(stderr, "endgames: no three-piece tables in %s\n", argv[5]);
      return 2;
    }
    // The smaller tables a capture leads to, built now: the search would
    // build each in the background and play on without it meanwhile.
    const std::string letters = "RSNM";
    for (char a : letters)
      for (char b : letters) {
        EgtbStats s;
        egtb_stats(std::string(1, a), s);
        egtb_stats(std::string{a, b}, s);
      }
  }
  int won = 0, played = 0, winnable = 0, unknown = 0;
  long plies = 0;
  while (played < positions) {
    char board[64] = {};
    auto put = [&](char piece) {
      int s;
      do s = int(rng() % 64);
      while (board[s]);
      board[s] = piece;
    };
    put('K');
    put('k');
    for (char c : material) put(c);
    // One digit per empty square: the FEN reader adds runs of digits up.
    std::string fen;
    for (int r = 7; r >= 0; --r) {
      for (int f = 0; f < 8; ++f) fen += board[r * 8 + f] ? board[r * 8 + f] : '1';
      if (r) fen += '/';
    }
    fen += " w - - 0 1";
    std::string error;
    auto game = Game::create(Variant::Makruk, Counting::Automatic, fen, &error);
    // Legal, not decided already, and material that can mate at all.
    if (!game || game->over() || game->position().in_check() || !can_checkmate(game->position(), WHITE))
      continue;
    DtmProbe p;
    const Count& c = game->position().count();
    if (argc <= 5 || !probe_dtm(game->position(), p)) ++unknown;
    else if (p.wdl == Wdl::Win && p.plies / 2 <= c.limit - c.n) ++winnable;
    if (nodes == 0) {
      ++played;
      continue;
    }
    Engine engine;
    while (!game->over() && game->plies() < 400) {
      Limits limits;
      limits.nodes = nodes;
      if (!game->play(engine.search(game->position(), limits).best, &error)) {
        std::fprintf(stderr, "illegal move: %s\n", error.c_str());
        return 1;
      }
    }
    ++played;
    if (game->result() == Result::WhiteWins) {
      ++won;
      plies += game->plies();
    } else {
      std::printf("not mated: %s (%s)\n", game->start_fen().c_str(),
                  std::string(reason_string(game->reason())).c_str());
    }
  }
  if (nodes == 0) {
    std::printf("K%sK: %d of %d won within the count (the table)\n", material.c_str(), winnable, played);
    return 0;
  }
  std::printf("K%sK: %d of %d mated, %.1f plies on average", material.c_str(), won, played,
              won ? double(plies) / won : 0.0);
  if (!unknown) std::printf("; %d won within the count (the table)", winnable);
  std::printf("\n");
  return 0;
}
