// Tournaments by code, a part of its own, on a thread of its own (never a
// table's): a host makes one, players join by its code with a name, the host
// starts it, and each game is an ordinary table with both seats taken.
//
// A tournament is stored as what it was made with and its events (a player
// joined, dropped or came back; it started; a game ended; it paused, resumed
// or ended; an arena paired those waiting), each appended at the version
// expected, as a table's actions are. Every instance rebuilds the same
// Tournament from them, since the pairings follow from the history, and
// reads the events another instance appended before it answers or appends.
//
// A game's table is made in the store by whoever appended the event that
// paired it: its code follows from the tournament's secret, round and board,
// so that making it again (after a crash, or at another instance) finds it
// made. The hub holding a game's table says when its game ends (game_over);
// a game whose end nobody said (its instance died first) is found by looking
// at the tables of the games under way now and then.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/game.h"
#include "server/address_limiter.h"
#include "server/answer.h"
#include "server/stores/store.h"
#include "server/tables/table.h"
#include "server/tournaments/tournament.h"

namespace makruk::server {

class Tournaments {
 public:
  struct Limits {
    // Joins from one address: a class or a club behind one address joins
    // together, so more than a table's.
    int join_per_minute = 100;
  };
  // What it asks of the tables' side: whether an address may make one more
  // table (a tournament counts as one), and whether it may look up a code now
  // (`wrong`: this lookup found nothing, and counts). Both thread-safe.
  struct Gate {
    std::function<bool(const std::string& ip)> may_create;
    std::function<bool(const std::string& ip, bool wrong)> code_guess_allowed;
  };

  // `store`: a connection of its own (its calls run on this part's thread).
  Tournaments(Store& store, Gate gate, std::function<int64_t()> now);

  void set_limits(const Limits& limits) { limits_ = limits; }
  // Turn-based tournaments: each new game's table is told (as a turn-based
  // table's move is: TurnNotices::notify), once its players' push
  // subscriptions from their last game of the tournament are carried over.
  void set_new_game(std::function<void(const Table&)> told) { new_game_ = std::move(told); }
  // With other instances, the limit on joining counts across them.
  void set_bus(Bus* bus) { joins_.share(bus, "tournament-join"); }

  // POST /api/tournaments: {title?, variant, counting, mode, format, rounds
  // (Swiss), minutes (arena), clock?: {minutes, increment}} → the code and
  // the host's token (201).
  Answer create(const std::string& body, const std::string& ip);
  // GET /api/tournaments/CODE: the tournament as it stands.
  Answer get(const std::string& code, const std::string& ip);
  // POST /api/tournaments/CODE/join: {name} → the player's number and token
  // (which is also their seat's token at each of their games' tables).
  Answer join(const std::string& code, const std::string& body, const std::string& ip);
  // POST /api/tournaments/CODE/act: {token, action, …}: the host's "start",
  // "pause", "resume", "end", "drop"/"back" (with "player"), "result" (with
  // "round", "board", "result": a game decided by the host); a player's own
  // "leave" and "back".
  Answer act(const std::string& code, const std::string& body, const std::string& ip);
  // GET /api/tournaments/CODE/standings.csv, and /games.pgn (every game
  // played or under way, in order of rounds and boards).
  Answer standings_csv(const std::string& code, const std::string& ip);
  Answer games_pgn(const std::string& code, const std::string& ip);
  // The tournament's link, for its QR code; empty when the code is unknown.
  std::string link(const std::string& code, const std::string& base_url, const std::string& ip);

  // A tournament's game ended at its table (`ref` is the table's
  // TableRecord::tournament): recorded, pairing what comes next.
  void game_over(const std::string& ref, Result result);
  // Every few seconds: arenas whose time is up end; the games under way in
  // the tournaments in memory are looked at now and then (a game's end that
  // nobody said); tournaments nobody asked for in a while leave memory.
  void tick();

  // The table code of a tournament's game (round, board).
  static std::string game_code(const std::string& secret, int round, int board);

 private:
  // A held tournament's answer for one version. A copy of a held tournament
  // is made to try an event on (append), so it is about to change: a copy
  // starts empty rather than copying the answer along (a large tournament's
  // is tens of kilobytes).
  struct AnswerCache {
    int version = -1;
    std::string text;
    AnswerCache() = default;
    AnswerCache(const AnswerCache&) {}
    AnswerCache& operator=(const AnswerCache&) {
      version = -1;
      text.clear();
      return *this;
    }
    AnswerCache(AnswerCache&&) = default;
    AnswerCache& operator=(AnswerCache&&) = default;
  };
  struct Held {
    TournamentRecord record;
    tournaments::Tournament t{tournaments::Settings{}};
    int version = 0;
    std::vector<std::string> tokens;  // each player's token hash, by number - 1
    int64_t started_at = 0;
    size_t made = 0;          // games() before this have their tables made
    int64_t looked_at = 0;    // when the games under way were last looked at
    int64_t asked_at = 0;     // when it was last asked for
    // The answer made for a version, made again only when the tournament
    // moved on: many players ask every few seconds.
    mutable AnswerCache cache;
  };
  // The tournament in memory, caught up with the store; nullptr when the code
  // is unknown (counted as a wrong code), with the refusal in `refusal`.
  Held* find(const std::string& code, const std::string& ip, Answer& refusal);
  Held* held(const std::string& code);  // no guard: a code a table named
  void catch_up(Held& h);
  // Applies a stored event to the tournament; what refused it, if anything.
  static tournaments::Refusal apply(Held& h, const std::string& event, int64_t at);
  // Appends an event once it applies to the tournament caught up (tried
  // again after another instance appended first); then makes the tables of
  // the games it paired, and what follows of itself (an arena's pairing).
  tournaments::Refusal append(Held& h, const std::string& event);
  void make_tables(Held& h);
  void follow_up(Held& h);
  // A running arena whose time is up.
  bool arena_over(const Held& h) const;
  // A turn-based tournament's new games: the players' subscriptions carried
  // over from their last game, and the player to move told.
  void tell_new_games(const Held& h, size_t first, size_t end);
  // The games under way whose tables have ended their games: recorded.
  void look_at_games(Held& h);
  // A game's table, read from the store, with its game begun (nothing when
  // there is no such table); and the same once its game is over.
  std::optional<Table> game_table(const Held& h, const tournaments::Pairing& g);
  std::optional<Table> ended_table(const Held& h, const tournaments::Pairing& g);
  // Records a game's end as its table has it: the result, after dropping a
  // player who missed the game (lost it on time without a move) until they
  // come back.
  void record_end(Held& h, const tournaments::Pairing& g, const Table& table);
  Answer state(const Held& h) const;

  Store& store_;
  Gate gate_;
  std::function<int64_t()> now_;
  Limits limits_;
  AddressLimiter joins_;
  std::recursive_mutex mutex_;  // the calls come from one thread; tests may call from another
  std::map<std::string, Held> held_;
  std::function<void(const Table&)> new_game_;
};

}  // namespace makruk::server
