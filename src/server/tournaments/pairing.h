// A tournament's pairings: the Swiss system (the Dutch rules of FIDE's
// handbook, C.04.3, found as the cheapest matching of the players), round
// robins (Berger tables, C.05 annex 1), and the arena (whoever is free, paired
// at once). Pure logic over a tournament's past: no clock, no store.
//
// Players are numbered from 1 in the order they joined; that number is the
// pairing number (the initial ranking, since no one has a rating).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace makruk::server::tournaments {

enum class Colour : std::uint8_t { white, black };
enum class Outcome : std::uint8_t { white_wins, draw, black_wins, pending };

struct Game {
  int round = 0;  // from 1 (the arena numbers its games' rounds in the order they were paired)
  int white = 0;
  int black = 0;
  Outcome outcome = Outcome::pending;
};
struct Bye {
  int round = 0;
  int player = 0;
};
// What the pairings and the standings read: the games played and the byes given.
struct History {
  std::vector<Game> games;
  std::vector<Bye> byes;
};

struct Board {
  int white = 0;
  int black = 0;
};
struct RoundPairing {
  std::vector<Board> boards;  // board 1 first
  int bye = 0;                // who has the bye (0: none)
};

// Half points: a win 2, a draw 1, a bye 2 (a full point, as FIDE's pairing-
// allocated bye); pending games count nothing.
int half_points(const History& history, int player, int before_round = 1 << 30);

// The next round of a Swiss tournament for the players present (not dropped,
// not away this round), after the rounds in `history` (all finished). In order
// of importance: no two players meet twice, and no player gets a second bye;
// no one gets a colour the rules forbid (a third of one colour in a row, or a
// difference of three); score groups are kept (floats as few and as short as
// can be); colour preferences; no one floats the same way twice in a row; the
// top half of a score group meets its bottom half in order. Only the first two
// are ever given up, and only when no pairing keeps them (more rounds than a
// small field can give). `first` is the colour the top player gets in round 1.
RoundPairing pair_swiss(const std::vector<int>& present, const History& history, Colour first = Colour::white);

// Every round of a round robin of `players` (Berger tables): with an odd number
// the player who would meet the extra one has the bye.
std::vector<RoundPairing> round_robin(int players);

// Each player's opponent in their latest game (games in the order played;
// a player with no game is not in it).
std::map<int, int> last_opponents(const History& history);

// The arena: pairs the players waiting now (in the order they began waiting),
// avoiding each one's last opponent and pairing close scores; colours even each
// one's whites and blacks. With an odd number, the one who began waiting last
// waits on.
std::vector<Board> pair_arena(const std::vector<int>& waiting, const History& history);

// A player's colour preference after their games (C.04.3 A.6): none before any
// game; absolute after two of one colour in a row or a difference of two;
// strong after a difference of one; mild otherwise (the other colour from the
// last game).
struct Preference {
  enum Strength : std::uint8_t { none, mild, strong, absolute };
  Strength strength = none;
  Colour colour = Colour::white;
};
Preference colour_preference(const History& history, int player);

}  // namespace makruk::server::tournaments
