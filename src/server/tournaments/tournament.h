// A tournament by code: its settings, its players, its rounds and their games,
// and what comes next. Pure flow, as a table's is: no clock, no store, no
// network. Its owner stores each change, makes a table for each new game, and
// says how each game ended; the next round is paired once the last game of a
// round has ended (Swiss and round robin), and an arena pairs whoever waits
// when asked to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/tournaments/pairing.h"
#include "server/tournaments/standings.h"

namespace makruk::server::tournaments {

struct Settings {
  Format format = Format::swiss;
  int rounds = 5;                // Swiss: how many rounds (1 to 20)
  Colour first = Colour::white;  // the top player's colour in round 1 (Swiss)
};

// Why a request changes nothing.
enum class Refusal : std::uint8_t {
  none,
  full,           // no more players (kMaxPlayers; kMaxRoundRobin for a round robin)
  not_open,       // joining a round robin under way, or starting one under way
  finished,       // the tournament is over
  too_few,        // starting with fewer than two players present
  not_running,    // pausing, resuming or pairing what is not under way
  unknown_player, // no such player
  unknown_game,   // no such game, or one that has ended already
};

// One game of a tournament: where it stands in its round, and how it ended.
struct Pairing {
  int round = 0;
  int board = 0;  // from 1 within its round
  int white = 0;
  int black = 0;
  Outcome outcome = Outcome::pending;
};

class Tournament {
 public:
  static constexpr int kMaxPlayers = 1000;
  static constexpr int kMaxRoundRobin = 12;
  enum class Status : std::uint8_t { open, running, paused, finished };

  explicit Tournament(Settings settings) : settings_(settings) {}

  const Settings& settings() const { return settings_; }
  Status status() const { return status_; }
  // The players, by number (from 1, in the order they joined), and their names.
  const std::vector<std::string>& names() const { return names_; }
  bool dropped(int player) const;
  int round() const { return round_; }  // the round under way or last played (0 before the start)
  const std::vector<Pairing>& games() const { return games_; }
  const std::vector<Bye>& byes() const { return byes_; }
  // The players waiting for a game (the arena), in the order they began waiting.
  const std::vector<int>& waiting() const { return waiting_; }

  // A new player: their number (in `number`), or why not. Before the start,
  // or later in a Swiss (from the next round, with no points for the rounds
  // missed) or an arena (waiting at once).
  Refusal join(const std::string& name, int& number);
  // Leaves the pairings from the next round on (a game under way goes on),
  // and comes back.
  Refusal drop(int player);
  Refusal come_back(int player);

  // Starts: the first round's games (Swiss, round robin), or the arena's first
  // pairings. The new games are those of games() from `first_new` on.
  Refusal start(size_t& first_new);
  // A game ended: once it is the last of its round (and the tournament is
  // not paused), the next round is paired, or the tournament ends after its
  // last one. An arena's players wait again. `first_new` as for start().
  Refusal game_ended(int round, int board, Outcome outcome, size_t& first_new);
  // No new round while paused; resuming pairs the next if it is due.
  Refusal pause();
  Refusal resume(size_t& first_new);
  // The arena: pairs those waiting now (two at least).
  Refusal pair_waiting(size_t& first_new);
  // Ends it now: no new round; games under way still count when they end.
  Refusal end();

  History history() const;
  std::vector<Standing> standings() const;
  // The standings as CSV: place, number, name, points, tie-breaks, wins, games.
  std::string standings_csv() const;

 private:
  std::vector<int> present() const;
  bool round_done() const;
  void next_round();
  void add_round(int round, const std::vector<Board>& boards);

  Settings settings_;
  Status status_ = Status::open;
  std::vector<std::string> names_;
  std::vector<bool> dropped_;
  int round_ = 0;
  std::vector<Pairing> games_;
  std::vector<Bye> byes_;
  std::vector<RoundPairing> schedule_;  // a round robin's rounds, from the start
  std::vector<int> waiting_;
};

}  // namespace makruk::server::tournaments
