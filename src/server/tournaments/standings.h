// A tournament's standings: points, then its format's tie-breaks (the rules
// are written out in docs/rules-notes.md, "Tournaments"):
//   Swiss:        Buchholz, then Sonneborn-Berger, then wins;
//   round robin:  Sonneborn-Berger, then the games between those still level, then wins;
//   arena:        wins, then Buchholz.
// Players level on everything share a place.
#pragma once

#include <string>
#include <vector>

#include "server/tournaments/pairing.h"

namespace makruk::server::tournaments {

enum class Format : std::uint8_t { round_robin, swiss, arena };

struct Standing {
  int player = 0;
  int place = 0;             // from 1; shared by players level on everything
  int points = 0;            // half points (a win 2, a draw 1, a bye 2)
  int buchholz = 0;          // half points: the sum of the opponents' points
  int sonneborn_berger = 0;  // quarter points: beaten opponents' points, and half of drawn ones'
  int mutual = 0;            // half points in games among the players level with this one (round robin)
  int wins = 0;
  int games = 0;             // games finished (byes not counted)
};

// The standings of `players` (every player the tournament had, dropped ones
// too), best first; level players in order of their numbers.
std::vector<Standing> standings(const std::vector<int>& players, const History& history, Format format);

// A number of half (or quarter) points as people write it: "3½", "0", "½", "7¼".
std::string written_points(int units, int per_point);

}  // namespace makruk::server::tournaments
