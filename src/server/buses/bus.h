// The bus between server instances that share one store: an instance that
// changes a table tells the others, and those holding the table read it again
// and tell their own players and spectators. One process alone needs no bus.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace makruk::server {

// What instances tell each other about a table, one of two things:
// - a change: its game and version now (0 when it has no game). An empty code
//   means "anything may have changed" (the bus was away and messages may be
//   lost): every table in memory is read again;
// - with `presence`: who is at the table on the sending instance now (its
//   open connections of each seat, its spectators and the names they gave).
struct BusMessage {
  BusMessage() = default;
  explicit BusMessage(std::string table, int64_t game_id = 0, int game_version = 0)
      : code(std::move(table)), game(game_id), version(game_version) {}

  std::string code;
  int64_t game = 0;
  int version = 0;
  // A change that was only actions in the game (moves, counting, draws,
  // resignation): the actions that took the game to `version`, accepted at
  // `at`. An instance holding the game just before them applies them in
  // memory instead of reading the table again.
  std::vector<std::string> actions;
  int64_t at = 0;
  // Or a new game (`game`, at version 0): its number and White's seat, begun
  // at `at`. An instance holding the game before it begins it in memory.
  int started = 0;  // the new game's number; 0: no game started
  int white = 0;
  std::string public_id;
  bool presence = false;
  int seats[2] = {0, 0};
  int spectators = 0;
  std::vector<std::string> names;
  std::string instance;  // the sender, set on delivery
  // Or a pairing made at another instance for a seeker connected here: the
  // instance (`to`), the seeker's connection and the message it gets.
  std::string to;
  uint64_t connection = 0;
  std::string paired;
};

// At most this many actions ride in one message; more, and the others read
// the table again.
constexpr size_t MAX_BUS_ACTIONS = 16;

class Bus {
 public:
  virtual ~Bus() = default;
  // Tells the other instances (never this one). Does not throw: a message
  // that cannot go is lost, and the others catch up on their next conflict,
  // message or reconnection.
  virtual void publish(const BusMessage& m) = 0;
  // Starts delivering the other instances' messages to `handler`, on the
  // bus's own thread.
  virtual void start(std::function<void(BusMessage)> handler) = 0;
  // Stops delivering: once it returns, the handler is not called again.
  virtual void stop() = 0;
  // This instance holds table `code` in memory, or is reading it (`held`),
  // or no longer (not `held`). A bus may then bring it only the changes and
  // presence of the tables it holds (the local bus between hubs does);
  // Redis brings every table's.
  virtual void hold(const std::string& code, bool held) {
    (void)code;
    (void)held;
  }
  // Whether the bus answers now: asks it (a round trip, within the
  // questions' deadline). Ask it, and the queue's questions below, only on
  // the bus's questions' thread, through ask().
  virtual bool healthy() = 0;
  // Whether the bus answered its last question (no round trip: for
  // /metrics).
  virtual bool up() const = 0;
  // Runs `question` on the bus's own thread for questions, after those asked
  // before it: there it may ask healthy() and the queue's questions, which
  // wait for Redis (each within the deadline, and none while it is away).
  // Never run once the bus stops.
  virtual void ask(std::function<void()> question) = 0;
  // A per-address count shared by the instances: how many events `key` has
  // had in the minute before `now` at all of them, recording one first when
  // `record`. Asked off the caller's thread, in order: `done` gets the count
  // on the bus's thread, or nothing when the bus does not answer (the
  // instance then counts alone); it is not called once the bus stops.
  virtual void count(const std::string& key, int64_t now, bool record,
                     std::function<void(std::optional<int64_t>)> done) = 0;

  // The queue of people looking for an opponent, shared by the instances
  // (asked on the questions' thread: see ask()):
  // its entries (texts) oldest first, or nothing when the bus does not answer.
  virtual std::optional<std::vector<std::string>> seeks() = 0;
  // How many entries it holds, without reading them.
  virtual std::optional<size_t> seek_count() = 0;
  virtual bool add_seek(const std::string& entry, int64_t since) = 0;
  // Takes an entry out; true for the one call that did (so two instances
  // never pair the same seeker).
  virtual bool take_seek(const std::string& entry) = 0;
  // This instance's name on the bus; that it is alive (said every few
  // seconds); whether another one still is (asked on the questions' thread).
  virtual const std::string& id() const = 0;
  virtual void alive() = 0;
  virtual bool is_alive(const std::string& instance) = 0;
};

// Redis publish/subscribe at `url` (redis://HOST:PORT). Throws
// std::runtime_error when the URL is malformed or Redis does not answer.
std::unique_ptr<Bus> open_redis_bus(const std::string& url);

}  // namespace makruk::server
