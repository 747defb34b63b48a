// Each game by its own link (any game of any table): its record, as JSON and
// as PGN, and its snapshot (the position and players that its pictures and
// its page show). Made from the store, never on a thread that serves tables,
// once per version of the game: asking again for a record already made costs
// a read of the game's head (its version and names) and a copy.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "server/stores/store.h"
#include "server/tables/hub.h"

namespace makruk::server {

// A game at its last position, with its players.
struct GameSnapshot {
  std::string id, variant, white, black;
  std::string result;     // "1-0", "0-1", "1/2-1/2", "*" while it runs
  std::string reason;     // how it ended; empty while it runs
  std::string fen;        // the position now
  std::string last_move;  // "e3e4", empty before the first move
  int moves = 0;          // moves played (plies)
};

class GameRecords {
 public:
  // Whether `ip` may look up a code now, counting one wrong guess when
  // `wrong` (the hub's limit on wrong table codes; thread-safe).
  using GuessAllowed = std::function<bool(const std::string& ip, bool wrong)>;

  // `store` is read from the threads that call this part; `base_url` makes
  // the PGN's Site; what is made is kept up to `cache_bytes` (the least
  // recently asked for leave first).
  GameRecords(Store& store, GuessAllowed guess_allowed, std::string base_url, size_t cache_bytes = 32u << 20);

  // Thread-safe, from any number of threads at once; a game asked for by
  // several at once is made once. An unknown id counts as a wrong code (a
  // known one always opens). `pgn`: the PGN alone, as a file.
  Answer record(const std::string& public_id, const std::string& ip, bool pgn);
  // The game's position and players, or the refusal record() gives.
  std::variant<GameSnapshot, Answer> snapshot(const std::string& public_id, const std::string& ip);

  // How many records were made (each version of a game once).
  uint64_t made() const;

 private:
  struct Made;
  std::shared_ptr<const Made> find(const std::string& public_id, const std::string& ip, Answer& refusal);
  std::shared_ptr<const Made> make(const TableData& d) const;
  void keep(const std::string& public_id, std::shared_ptr<const Made> made);  // the lock held

  Store& store_;
  GuessAllowed guess_allowed_;
  const std::string base_url_;
  const size_t cache_bytes_;
  mutable std::mutex mutex_;
  struct Kept {
    std::shared_ptr<const Made> made;
    std::list<std::string>::iterator order;
  };
  std::map<std::string, Kept> kept_;  // by public id
  std::list<std::string> order_;      // most recently asked for first
  size_t bytes_ = 0;
  // The records being made, by public id: who asks meanwhile waits for it.
  std::map<std::string, std::shared_future<std::shared_ptr<const Made>>> making_;
  uint64_t made_ = 0;
};

}  // namespace makruk::server
