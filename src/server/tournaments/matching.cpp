// The blossom algorithm is LEMON's (Debian's liblemon-dev), whose headers build
// as C++17 but not C++20; this file alone is compiled as C++17 with GNU
// extensions, for the 128-bit integers the levels are folded into.
#include "server/tournaments/matching.h"

#include <lemon/matching.h>
#include <lemon/smart_graph.h>

#include <stdexcept>

namespace makruk::server::tournaments {

namespace {

using Weight = __int128;

// Each level's weight: more than the largest sum the levels after it can
// reach (n/2 pairs, each at most the level's largest value). The total must
// stay well inside 128 bits, since the algorithm's dual values are scaled up.
std::array<Weight, kCostLevels> level_weights(int n, const std::array<std::uint32_t, kCostLevels>& largest) {
  constexpr Weight kBound = Weight(1) << 120;
  std::array<Weight, kCostLevels> weight{};
  Weight next = 1;
  const Weight pairs = n / 2 + 1;
  for (int level = kCostLevels - 1; level >= 0; --level) {
    weight[level] = next;
    const Weight factor = pairs * (Weight(largest[level]) + 1);
    if (next > kBound / factor) throw std::invalid_argument("cheapest_pairing: costs too large to compare");
    next *= factor;
  }
  return weight;
}

}  // namespace

std::vector<int> cheapest_pairing(int n, const std::function<Cost(int, int)>& cost) {
  if (n < 0 || n % 2 != 0 || n > 2000) throw std::invalid_argument("cheapest_pairing: an even number of players, at most 2000");
  if (n == 0) return {};
  std::vector<Cost> costs;
  costs.reserve(size_t(n) * size_t(n - 1) / 2);
  std::array<std::uint32_t, kCostLevels> largest{};
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      costs.push_back(cost(a, b));
      for (int level = 0; level < kCostLevels; ++level) {
        if (costs.back()[level] > kLevelMax) throw std::invalid_argument("cheapest_pairing: a cost level past its maximum");
        largest[level] = std::max(largest[level], costs.back()[level]);
      }
    }
  }
  const auto weight = level_weights(n, largest);

  lemon::SmartGraph graph;
  graph.reserveNode(n);
  graph.reserveEdge(int(costs.size()));
  std::vector<lemon::SmartGraph::Node> node;
  for (int a = 0; a < n; ++a) node.push_back(graph.addNode());
  lemon::SmartGraph::EdgeMap<Weight> gain(graph);
  size_t i = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b, ++i) {
      Weight total = 0;
      for (int level = 0; level < kCostLevels; ++level) total += weight[level] * costs[i][level];
      gain[graph.addEdge(node[a], node[b])] = -total;  // the heaviest matching is the cheapest
    }
  }
  lemon::MaxWeightedPerfectMatching<lemon::SmartGraph, lemon::SmartGraph::EdgeMap<Weight>> matching(graph, gain);
  if (!matching.run()) throw std::logic_error("cheapest_pairing: a complete graph has a perfect matching");
  std::vector<int> partner(n);
  for (int a = 0; a < n; ++a) partner[a] = graph.id(matching.mate(node[a]));
  return partner;
}

}  // namespace makruk::server::tournaments
