#include "server/tournaments/standings.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace makruk::server::tournaments {

namespace {

// The points `player` scored in game `g` (half points), or -1 when unfinished.
int scored(const Game& g, int player) {
  if (g.outcome == Outcome::pending) return -1;
  if (g.outcome == Outcome::draw) return 1;
  const bool white_won = g.outcome == Outcome::white_wins;
  return (g.white == player) == white_won ? 2 : 0;
}

}  // namespace

std::vector<Standing> standings(const std::vector<int>& players, const History& history, Format format) {
  std::map<int, Standing> table;
  for (int p : players) {
    Standing& s = table[p];
    s.player = p;
    s.points = half_points(history, p);
  }
  auto points_of = [&](int p) {
    auto it = table.find(p);
    return it == table.end() ? half_points(history, p) : it->second.points;
  };
  for (const Game& g : history.games) {
    for (int side = 0; side < 2; ++side) {
      const int me = side == 0 ? g.white : g.black;
      const int them = side == 0 ? g.black : g.white;
      auto it = table.find(me);
      const int mine = scored(g, me);
      if (it == table.end() || mine < 0) continue;
      Standing& s = it->second;
      s.games += 1;
      s.wins += mine == 2;
      s.buchholz += points_of(them);
      s.sonneborn_berger += mine * points_of(them);  // a win: 2 × (their half points) quarter points
    }
  }
  std::vector<Standing> list;
  for (auto& [p, s] : table) list.push_back(s);

  // Round robin: points among those level on points and Sonneborn-Berger.
  if (format == Format::round_robin) {
    for (Standing& s : list) {
      for (const Game& g : history.games) {
        const int them = g.white == s.player ? g.black : g.black == s.player ? g.white : 0;
        if (them == 0 || scored(g, s.player) < 0) continue;
        auto other = std::find_if(list.begin(), list.end(), [&](const Standing& o) { return o.player == them; });
        if (other != list.end() && other->points == s.points && other->sonneborn_berger == s.sonneborn_berger) {
          s.mutual += scored(g, s.player);
        }
      }
    }
  }
  auto key = [format](const Standing& s) {
    switch (format) {
      case Format::swiss: return std::make_tuple(s.points, s.buchholz, s.sonneborn_berger, s.wins);
      case Format::round_robin: return std::make_tuple(s.points, s.sonneborn_berger, s.mutual, s.wins);
      case Format::arena: break;
    }
    return std::make_tuple(s.points, s.wins, s.buchholz, 0);
  };
  std::stable_sort(list.begin(), list.end(), [&](const Standing& a, const Standing& b) { return key(a) > key(b); });
  for (size_t i = 0; i < list.size(); ++i) {
    list[i].place = i > 0 && key(list[i]) == key(list[i - 1]) ? list[i - 1].place : int(i) + 1;
  }
  return list;
}

std::string written_points(int units, int per_point) {
  std::string s = units / per_point > 0 || units == 0 ? std::to_string(units / per_point) : "";
  const int rest = units % per_point * (4 / per_point);  // in quarters
  static const char* const kQuarters[] = {"", "¼", "½", "¾"};
  return s + kQuarters[rest];
}

}  // namespace makruk::server::tournaments
