// Instance sync, a part of its own: what the tables of this instance tell
// the other instances sharing the store (a change, with the actions or the
// new game that made it; who is at a table here), and what they do with what
// the others tell (take the change in memory, or read the table again; show
// who is at the table there). The bus's messages come on the bus's thread
// and are handled on the hub's executor a slice at a time, between its other
// work, so that the others catching up after a stall hold up no table for
// long. It asks the tables through InstanceSync::Tables. Without a bus (one
// process) it does nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "server/buses/bus.h"
#include "server/tables/table.h"

namespace makruk::server {

class InstanceSync {
 public:
  using Post = std::function<void(std::function<void()>)>;
  // What it asks of the tables (on the hub's executor).
  struct Tables {
    // The table in memory, or nullptr.
    std::function<Table*(const std::string& code)> in_memory;
    // Every table in memory.
    std::function<void(const std::function<void(const std::string& code, Table& p)>&)> each;
    // Tells the table's watchers (the table itself changed, its game did).
    std::function<void(Table& p, bool table_changed, bool state_changed)> broadcast;
    // The table's game went on at another instance and is taken here
    // (its first move watched, its CPU asked to play).
    std::function<void(Table& p)> went_on;
    // Someone came to the table at another instance (a paired game may begin).
    std::function<void(Table& p)> came;
    // Reads the table again from the store (another instance changed what
    // no message carries).
    std::function<void(const std::string& code)> read_again;
    // A seeker connected here was paired at another instance.
    std::function<void(uint64_t connection, const std::string& paired)> paired_elsewhere;
  };

  InstanceSync(Tables tables, Post post, std::function<int64_t()> now)
      : tables_(std::move(tables)), post_(std::move(post)), now_(std::move(now)) {}
  ~InstanceSync() { stop(); }

  // Starts hearing the bus (none: one process alone); says this instance is alive.
  void set_bus(Bus* bus);
  // Hears it no longer: once it returns, nothing of the bus's is posted.
  void stop();
  bool active() const { return bus_ != nullptr; }

  // Tells the other instances that this one changed a table. `from`: the
  // game's version before a change that was only actions, which then ride
  // along; A_GAME_BEGAN for a change that was only a new game (which rides
  // along too); -1: any other change.
  static constexpr int A_GAME_BEGAN = -2;
  void publish(const Table& p, int from = -1);
  // Tells the other instances who is at a table here.
  void publish_presence(const Table& p);
  // Says this instance is alive, says again who is at each table here (every
  // PRESENCE_HEARTBEAT_MS), and forgets what an instance silent for two of
  // those said; called every few seconds.
  void heartbeat();
  // How long the last heartbeat's word to the bus took (for /metrics).
  double heartbeat_s() const { return heartbeat_s_; }

 private:
  void on_message(const BusMessage& m);
  void on_presence(const BusMessage& m);
  // Handles the messages waiting in inbox_, at most BUS_SLICE at a time
  // before the hub's other work.
  void drain();

  Tables tables_;
  Post post_;
  std::function<int64_t()> now_;
  Bus* bus_ = nullptr;
  std::mutex inbox_mutex_;
  std::deque<BusMessage> inbox_;  // from the bus's thread
  bool draining_ = false;         // a drain is posted or running
  double heartbeat_s_ = 0;
};

// Messages from the bus handled in one go before the hub's other work.
constexpr size_t BUS_SLICE = 32;
// Instances tell each other who is at their tables this often.
constexpr int64_t PRESENCE_HEARTBEAT_MS = 30000;

}  // namespace makruk::server
