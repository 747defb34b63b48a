// Swiss pairings at scale: a tournament of N players played over R rounds with
// random results (a few players away each round), and how long each round's
// pairing takes. Usage: pairing [--players N] [--rounds R] [--seed S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "server/tournaments/pairing.h"

using namespace makruk::server::tournaments;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  int players = 500, rounds = 9;
  unsigned seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--players") players = std::stoi(argv[i + 1]);
    else if (k == "--rounds") rounds = std::stoi(argv[i + 1]);
    else if (k == "--seed") seed = unsigned(std::stoul(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: pairing [--players N] [--rounds R] [--seed S]\n");
      return 2;
    }
  }
  std::mt19937 random(seed);
  History history;
  double slowest = 0;
  std::printf("round  present  boards  bye  pairing (ms)\n");
  for (int round = 1; round <= rounds; ++round) {
    std::vector<int> present;
    for (int p = 1; p <= players; ++p)
      if (random() % 50 != 0) present.push_back(p);
    const auto t0 = Clock::now();
    const RoundPairing r = pair_swiss(present, history);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    slowest = std::max(slowest, ms);
    std::printf("%5d  %7zu  %6zu  %3s  %12.1f\n", round, present.size(), r.boards.size(), r.bye ? "yes" : "no", ms);
    for (const Board& b : r.boards) {
      const int x = int(random() % 3);
      history.games.push_back({round, b.white, b.black, x == 0 ? Outcome::white_wins : x == 1 ? Outcome::draw : Outcome::black_wins});
    }
    if (r.bye) history.byes.push_back({round, r.bye});
  }
  std::printf("slowest round: %.1f ms\n", slowest);
}
