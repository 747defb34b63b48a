// The cheapest way to pair everyone: a minimum-cost perfect matching on the
// complete graph of the players (Edmonds' blossom algorithm, from LEMON), with
// costs compared level by level. The Swiss system and the arena say what a
// pairing of two players costs; this finds the pairing of all of them whose
// summed cost is least in the first level, then in the second, and so on.
//
// This header is plain C++17 (matching.cpp is compiled as C++17, the newest
// standard LEMON 1.3 builds under).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace makruk::server::tournaments {

// What pairing two players costs: levels compared in order, the first most
// important. A level's value for one pair is at most `kLevelMax`.
inline constexpr int kCostLevels = 6;
inline constexpr std::uint32_t kLevelMax = 1u << 20;
using Cost = std::array<std::uint32_t, kCostLevels>;

// Pairs 0..n-1 (n even, at most 2,000) so that the sum of the pairs' costs is
// least, level by level (a lower sum in an earlier level beats any sum in the
// later ones). Returns each one's partner. Deterministic: the same costs give
// the same pairing. Throws std::invalid_argument for an odd n or a level's
// value past kLevelMax.
std::vector<int> cheapest_pairing(int n, const std::function<Cost(int, int)>& cost);

}  // namespace makruk::server::tournaments
