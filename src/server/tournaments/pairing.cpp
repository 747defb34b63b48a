#include "server/tournaments/pairing.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "server/tournaments/matching.h"

namespace makruk::server::tournaments {

namespace {

Colour other(Colour c) { return c == Colour::white ? Colour::black : Colour::white; }

// The games in the order they were played (by round; the arena's in the order paired).
std::vector<const Game*> in_order(const History& history) {
  std::vector<const Game*> games;
  for (const Game& g : history.games) games.push_back(&g);
  std::stable_sort(games.begin(), games.end(), [](const Game* a, const Game* b) { return a->round < b->round; });
  return games;
}

// The colours a player had, in order.
std::vector<Colour> colours_of(const std::vector<const Game*>& games, int player) {
  std::vector<Colour> colours;
  for (const Game* g : games) {
    if (g->white == player) colours.push_back(Colour::white);
    if (g->black == player) colours.push_back(Colour::black);
  }
  return colours;
}

Preference preference_from(const std::vector<Colour>& colours) {
  Preference p;
  if (colours.empty()) return p;
  const int whites = int(std::count(colours.begin(), colours.end(), Colour::white));
  const int difference = whites - (int(colours.size()) - whites);
  const Colour last = colours.back();
  const bool two_in_a_row = colours.size() >= 2 && colours[colours.size() - 2] == last;
  if (difference > 1 || difference < -1 || two_in_a_row) {
    p.strength = Preference::absolute;
    p.colour = difference > 1 ? Colour::black : difference < -1 ? Colour::white : other(last);
  } else if (difference != 0) {
    p.strength = Preference::strong;
    p.colour = difference > 0 ? Colour::black : Colour::white;
  } else {
    p.strength = Preference::mild;
    p.colour = other(last);
  }
  return p;
}

// A player as a pairing sees them.
struct Entrant {
  int id = 0;
  int points = 0;  // half points
  std::set<int> met;
  bool had_bye = false;
  int last_float = 0;  // the previous round: +1 floated down (or had the bye), -1 up
  std::vector<Colour> colours;
  std::map<int, Colour> colour_in_round;
  Preference preference;
  // Place: in the ranking of those present, and in its score group.
  int rank = 0, group = 0, position = 0;
};

std::vector<Entrant> entrants(const std::vector<int>& present, const History& history, int next_round) {
  const auto games = in_order(history);
  std::vector<Entrant> players;
  for (int id : present) {
    Entrant e;
    e.id = id;
    e.points = half_points(history, id);
    e.colours = colours_of(games, id);
    e.preference = preference_from(e.colours);
    for (const Game* g : games) {
      if (g->white != id && g->black != id) continue;
      const int opponent = g->white == id ? g->black : g->white;
      e.met.insert(opponent);
      e.colour_in_round[g->round] = g->white == id ? Colour::white : Colour::black;
      if (g->round == next_round - 1) {
        const int mine = half_points(history, id, g->round), theirs = half_points(history, opponent, g->round);
        e.last_float = mine > theirs ? 1 : mine < theirs ? -1 : 0;
      }
    }
    for (const Bye& b : history.byes) {
      if (b.player != id) continue;
      e.had_bye = true;
      if (b.round == next_round - 1) e.last_float = 1;
    }
    players.push_back(std::move(e));
  }
  std::sort(players.begin(), players.end(), [](const Entrant& a, const Entrant& b) {
    return a.points != b.points ? a.points > b.points : a.id < b.id;
  });
  for (size_t i = 0; i < players.size(); ++i) players[i].rank = int(i);
  return players;
}

// C.04.3 E: the colours of two players, `a` ranked above `b`.
Board allocate(const Entrant& a, const Entrant& b, Colour first) {
  const Preference& pa = a.preference;
  const Preference& pb = b.preference;
  auto a_gets = [&](Colour c) { return c == Colour::white ? Board{a.id, b.id} : Board{b.id, a.id}; };
  if (pa.strength == Preference::none && pb.strength == Preference::none) {
    return a_gets(a.id % 2 == 1 ? first : other(first));  // E.5: by the higher one's pairing number
  }
  if (pb.strength == Preference::none || (pa.strength != Preference::none && pa.colour != pb.colour)) {
    return a_gets(pa.colour);  // E.1: both preferences, or the only one
  }
  if (pa.strength == Preference::none) return a_gets(other(pb.colour));
  if (pa.strength != pb.strength) return a_gets(pa.strength > pb.strength ? pa.colour : other(pb.colour));  // E.2
  // E.3: alternate from the latest round in which one had white and the other black.
  for (auto it = a.colour_in_round.rbegin(); it != a.colour_in_round.rend(); ++it) {
    auto theirs = b.colour_in_round.find(it->first);
    if (theirs != b.colour_in_round.end() && theirs->second != it->second) return a_gets(other(it->second));
  }
  return a_gets(pa.colour);  // E.4: the higher-ranked player's preference
}

// Boards in order (C.04.2 B): the higher score first, then the higher sum of scores, then
// the rank of the higher-ranked player.
void order_boards(std::vector<Board>& boards, const std::vector<Entrant>& players) {
  std::map<int, const Entrant*> by_id;
  for (const Entrant& e : players) by_id[e.id] = &e;
  std::sort(boards.begin(), boards.end(), [&](const Board& x, const Board& y) {
    auto key = [&](const Board& b) {
      const Entrant* w = by_id.at(b.white);
      const Entrant* k = by_id.at(b.black);
      return std::make_tuple(-std::max(w->points, k->points), -(w->points + k->points), std::min(w->rank, k->rank));
    };
    return key(x) < key(y);
  });
}

}  // namespace

int half_points(const History& history, int player, int before_round) {
  int points = 0;
  for (const Game& g : history.games) {
    if (g.round >= before_round) continue;
    if (g.outcome == Outcome::draw && (g.white == player || g.black == player)) points += 1;
    if (g.outcome == Outcome::white_wins && g.white == player) points += 2;
    if (g.outcome == Outcome::black_wins && g.black == player) points += 2;
  }
  for (const Bye& b : history.byes) {
    if (b.player == player && b.round < before_round) points += 2;
  }
  return points;
}

Preference colour_preference(const History& history, int player) {
  return preference_from(colours_of(in_order(history), player));
}

RoundPairing pair_swiss(const std::vector<int>& present, const History& history, Colour first) {
  int last_round = 0;
  for (const Game& g : history.games) last_round = std::max(last_round, g.round);
  for (const Bye& b : history.byes) last_round = std::max(last_round, b.round);
  std::vector<Entrant> players = entrants(present, history, last_round + 1);
  const int n = int(players.size());
  if (n < 2) throw std::invalid_argument("pair_swiss: at least two players");

  // Score groups, and how they are expected to fit: one player floats down
  // from a group whose count (with the one floating into it) is odd.
  struct Group {
    int size = 0, floats_in = 0, floats_out = 0;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < players.size(); ++i) {
    if (i == 0 || players[i].points != players[i - 1].points) groups.push_back({});
    players[i].group = int(groups.size()) - 1;
    players[i].position = groups.back().size++;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].floats_in = g == 0 ? 0 : groups[g - 1].floats_out;
    groups[g].floats_out = (groups[g].size + groups[g].floats_in) % 2;
  }

  // The costs, level by level (matching.h). Index n is the bye when n is odd.
  enum Level { kRepeat, kForbiddenColour, kScores, kColours, kFloatsAgain, kOrder };
  const bool odd = n % 2 == 1;
  auto cost = [&](int i, int j) {
    Cost c{};
    const Entrant& a = players[i];  // i < j: `a` ranked higher
    const int weight = n - a.rank;  // the higher a player, the more their own order counts
    if (j == n) {  // `a` has the bye: as if floating below the last group
      const int below = int(groups.size()) - a.group;
      c[kRepeat] = a.had_bye;
      c[kScores] = std::uint32_t(std::min(below * below, 1023));
      c[kFloatsAgain] = a.last_float == 1;
      c[kOrder] = std::uint32_t(std::min(groups[a.group].size - 1 - a.position, 63) * weight);
      return c;
    }
    const Entrant& b = players[j];
    c[kRepeat] = a.met.count(b.id) > 0;
    const Preference& pa = a.preference;
    const Preference& pb = b.preference;
    if (pa.strength != Preference::none && pb.strength != Preference::none && pa.colour == pb.colour) {
      c[kForbiddenColour] = pa.strength == Preference::absolute && pb.strength == Preference::absolute;
      c[kColours] = std::min(pa.strength, pb.strength);
    }
    const int apart = b.group - a.group;
    c[kScores] = std::uint32_t(std::min(apart * apart, 1023));
    int off = 0;
    if (apart > 0) {
      c[kFloatsAgain] = (a.last_float == 1) + (b.last_float == -1);
      off = (groups[a.group].size - 1 - a.position) + b.position;  // the last of one group, the first of the next
    } else {
      const Group& g = groups[a.group];
      const int half = std::max((g.size - g.floats_in - g.floats_out) / 2, 1);
      off = std::abs(b.position - a.position - half);  // the top half meets the bottom half in order
    }
    c[kOrder] = std::uint32_t(std::min(off, 63) * weight);
    return c;
  };
  const std::vector<int> partner = cheapest_pairing(n + odd, cost);

  RoundPairing round;
  for (int i = 0; i < n; ++i) {
    const int j = partner[i];
    if (j == n) round.bye = players[i].id;
    else if (i < j) round.boards.push_back(allocate(players[i], players[j], first));
  }
  order_boards(round.boards, players);
  return round;
}

std::vector<RoundPairing> round_robin(int players) {
  if (players < 2) throw std::invalid_argument("round_robin: at least two players");
  const int n = players + players % 2;  // with an odd number, player n is the bye
  auto wrap = [&](int k) { return ((k - 1) % (n - 1) + (n - 1)) % (n - 1) + 1; };
  std::vector<RoundPairing> rounds;
  for (int r = 1; r < n; ++r) {
    RoundPairing round;
    const int x = (r - 1) * (n / 2) % (n - 1) + 1;  // player n's opponent
    const Board first = r % 2 == 0 ? Board{n, x} : Board{x, n};
    if (n != players) round.bye = x;
    else round.boards.push_back(first);
    for (int k = 1; k < n / 2; ++k) round.boards.push_back({wrap(x + k), wrap(x - k)});
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::map<int, int> last_opponents(const History& history) {
  std::map<int, int> last;
  for (const Game* g : in_order(history)) {
    last[g->white] = g->black;
    last[g->black] = g->white;
  }
  return last;
}

std::vector<Board> pair_arena(const std::vector<int>& waiting, const History& history) {
  std::vector<int> now = waiting;
  if (now.size() % 2 == 1) now.pop_back();  // the one who began waiting last waits on
  if (now.empty()) return {};
  std::vector<Entrant> players = entrants(now, history, 1 << 30);
  const std::map<int, int> last_opponent = last_opponents(history);
  auto cost = [&](int i, int j) {
    const Entrant& a = players[i];
    const Entrant& b = players[j];
    Cost c{};
    auto last = [&](int p) { auto it = last_opponent.find(p); return it == last_opponent.end() ? 0 : it->second; };
    c[0] = last(a.id) == b.id || last(b.id) == a.id;
    c[1] = std::uint32_t(j - i);  // close in the standings
    if (a.preference.strength != Preference::none && b.preference.strength != Preference::none &&
        a.preference.colour == b.preference.colour) {
      c[2] = std::min(a.preference.strength, b.preference.strength);
    }
    return c;
  };
  const std::vector<int> partner = cheapest_pairing(int(players.size()), cost);
  std::vector<Board> boards;
  for (int i = 0; i < int(players.size()); ++i) {
    if (i < partner[i]) boards.push_back(allocate(players[i], players[partner[i]], Colour::white));
  }
  order_boards(boards, players);
  return boards;
}

}  // namespace makruk::server::tournaments
