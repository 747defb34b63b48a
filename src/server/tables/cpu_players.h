// The CPU players, a part of its own: when a table's CPU must act, its
// search on the engine's threads (with a short, human-like pause at the low
// levels), its turn claimed first with other instances (a lease in the
// store, so that one instance plays it, and another takes it over when that
// one dies), and its limits (CPU tables per address, the searches waiting in
// all and per address). What it found goes back to the tables, which play it
// as a player's actions (CpuPlayers::Tables). It runs on the hub's executor.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "server/address_limiter.h"
#include "server/buses/bus.h"
#include "server/cpu/cpu.h"
#include "server/stores/store_writer.h"
#include "server/tables/table.h"

namespace makruk::server {

class CpuPlayers {
 public:
  using Post = std::function<void(std::function<void()>)>;
  using Defer = std::function<void(int64_t delay_ms, std::function<void()>)>;
  // What it asks of the tables.
  struct Tables {
    // The table in memory, or nullptr.
    std::function<Table*(const std::string& code)> in_memory;
    // Reads the tables named (those not in memory) off the hub's thread,
    // then runs `then` here.
    std::function<void(const std::vector<std::string>& codes, std::function<void()> then)> open_all;
    // What the CPU found for the game `game` at `version`: its actions, to
    // be played (finished() is called once they are taken).
    std::function<void(const std::string& code, int64_t game, int version, std::vector<std::string> actions)> play;
  };
  struct Limits {
    int max_ms = 1500;                  // time cap on one search
    bool pause = true;                  // the low levels answer after a short pause
    int per_minute = 3;                 // tables against the CPU created, per address
    size_t queue = 256;                 // searches waiting; past it no new CPU table is made
    size_t queue_per_address = 8;       // the same, for one address's searches
  };

  // Its searches run on `shared` (the engine threads a process's hubs share,
  // fair between addresses over all of them), or else on `threads` of its own.
  CpuPlayers(Tables tables, std::function<int64_t()> now, Post post, int threads, CpuPool* shared = nullptr);

  void set_limits(const Limits& limits) { limits_ = limits; }
  void set_defer(Defer defer) { defer_ = std::move(defer); }
  // Where the turns are claimed with other instances (the hub's writer).
  void set_writer(StoreWriter* writer) { writer_ = writer; }
  // With other instances: a turn is claimed before it is searched, and the
  // limit on CPU tables counts across them.
  void set_bus(Bus* bus);
  void count_with(const CpuPlayers& first) { creates_.count_with(first.creates_); }  // the hubs of one process

  // A new table against the CPU for `ip` now: the refusal (a limit.* or
  // busy message, with what it comes to), or nothing.
  struct Refusal {
    Outcome outcome;  // RateLimited (the address's limit) or Unavailable (busy)
    Msg why;
  };
  std::optional<Refusal> may_create(const std::string& ip, int64_t now);
  // One was made: it counts against the address, whose is its CPU's work.
  void created(const std::string& code, const std::string& ip, int64_t at);
  // The CPU's next search at this table is for this address (its player).
  void works_for(const std::string& code, const std::string& ip) { owner_[code] = ip; }

  // Searches the CPU's turn at the table when it must act and is not
  // already thinking (with other instances, once claimed).
  void maybe_play(Table& p);
  // Its search's result is being played: it thinks no longer.
  void finished(const std::string& code) { busy_.erase(code); }
  bool busy(const std::string& code) const { return busy_.count(code) != 0; }
  // A table left memory.
  void forget(const std::string& code) { owner_.erase(code); }
  // With other instances: the turns whose searching instance let its lease
  // run out (it died), asked of the store off this thread, then handed to
  // `owed` here (to be played by the hubs holding them: play_owed); called
  // every few seconds.
  void scan(std::function<void(std::vector<std::string> codes)> owed);
  // Plays those turns at these tables (read first when not in memory).
  void play_owed(std::vector<std::string> codes);

  size_t pending() const { return pool_->pending(); }
  // Forgets the limit's windows that have emptied; its counts asked of the
  // bus and not yet answered (see AddressLimiter).
  void sweep(int64_t now) { creates_.sweep(now); }
  int limits_asking() const { return creates_.asking(); }

 private:
  void search(Table& p);

  Tables tables_;
  std::function<int64_t()> now_;
  Post post_;
  Defer defer_;
  Limits limits_;
  StoreWriter* writer_ = nullptr;
  bool shared_ = false;
  AddressLimiter creates_;
  std::set<std::string> busy_;                 // tables whose CPU is thinking (or claiming its turn)
  std::map<std::string, std::string> owner_;   // table code -> the address its CPU works for
  std::mt19937_64 rng_;  // the low levels' pause
  CpuPool* pool_;
  // Its own threads, when it shares none; last, so that they stop (and their
  // searches' answers are posted) before the rest goes.
  std::unique_ptr<CpuPool> own_pool_;
};

// The lease on a CPU turn lasts the search's time cap and this much more
// (the wait for a CPU thread, the pause of the low levels).
constexpr int64_t CPU_LEASE_MARGIN_MS = 10000;

}  // namespace makruk::server
