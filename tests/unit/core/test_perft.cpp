// Perft against the reference counts (tests/data/perft.tsv, copied from the
// project's shared data): start positions to depth 5 and every listed position.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/movegen.h"
#include "core/perft.h"

using namespace makruk;

namespace {

struct PerftCase {
  Variant variant;
  std::string fen;
  int depth;
  uint64_t nodes;
};

std::vector<PerftCase> load_cases() {
  std::ifstream in(std::string(MAKRUK_TEST_DATA) + "/perft.tsv");
  std::vector<PerftCase> cases;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string variant, fen, depth, nodes;
    std::getline(row, variant, '\t');
    std::getline(row, fen, '\t');
    std::getline(row, depth, '\t');
    std::getline(row, nodes, '\t');
    Variant v;
    if (!parse_variant(variant, v)) continue;
    cases.push_back({v, fen, std::stoi(depth), std::stoull(nodes)});
  }
  return cases;
}

// Node budget per case: the full file in optimised builds; sanitizer builds
// (MAKRUK_PERFT_MAX_NODES) stop at a smaller tree.
uint64_t max_nodes() {
  const char* env = std::getenv("MAKRUK_PERFT_MAX_NODES");
  return env ? std::strtoull(env, nullptr, 10) : 10'000'000'000ULL;
}

}  // namespace

TEST(Perft, DataFileIsComplete) {
  auto cases = load_cases();
  EXPECT_GE(cases.size(), 150u);
}

TEST(Perft, ReferenceCounts) {
  uint64_t budget = max_nodes();
  int run = 0;
  for (const PerftCase& c : load_cases()) {
    if (c.nodes > budget) continue;
    Position pos;
    std::string error;
    ASSERT_TRUE(pos.set(c.fen, c.variant, Counting::Automatic, &error)) << c.fen << ": " << error;
    EXPECT_EQ(perft(pos, c.depth), c.nodes) << variant_name(c.variant) << " " << c.fen << " depth " << c.depth;
    EXPECT_TRUE(pos.is_consistent());
    ++run;
  }
  EXPECT_GT(run, 100);
}

TEST(Perft, StartPositionsDepth5) {
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    Position pos;
    ASSERT_TRUE(pos.set(Position::start_fen(v), v, Counting::Automatic, nullptr));
    EXPECT_EQ(perft(pos, 5), v == Variant::Makruk ? 6223994u : 8597966u);
  }
}

TEST(Perft, DivideSumsToTotal) {
  for (const PerftCase& c : load_cases()) {
    if (c.depth != 3) continue;
    Position pos;
    ASSERT_TRUE(pos.set(c.fen, c.variant, Counting::Automatic, nullptr));
    uint64_t sum = 0;
    auto divided = perft_divide(pos, c.depth);
    EXPECT_EQ(int(divided.size()), count_legal(pos));
    for (auto& [m, n] : divided) {
      pos.do_move(m);
      EXPECT_EQ(n, perft(pos, c.depth - 1));
      pos.undo_move();
      sum += n;
    }
    EXPECT_EQ(sum, c.nodes) << c.fen;
  }
}
