// The CPU opponent: engine searches on worker threads, so that a search never
// stalls the network or the hub.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/position.h"

namespace makruk::server {

struct CpuJob {
  Position position;  // with its history and count
  int level = 8;
  int max_ms = 1500;  // time cap on the search
  // The other side's draw offer stands: answer it (and move, if it is the
  // CPU's turn and it declines).
  bool answer_offer = false;
  Color cpu = BLACK;  // the CPU's colour
  // Whom the search is for (the client's address): the owner served least
  // recently goes first, so that one owner's many tables cannot hold up
  // another's.
  std::string owner;
  // The actions to play, in order (e.g. {"stop:b", "h8a8"}), on the hub's side.
  std::function<void(std::vector<std::string>)> done;
};

class CpuPool {
 public:
  explicit CpuPool(int threads);
  ~CpuPool();
  void submit(CpuJob job);
  // Searches waiting for a thread, in all and for one owner.
  size_t pending() const;
  size_t pending_for(const std::string& owner) const;
  // A search's time when `waiting` searches wait for `threads` threads: its
  // cap divided by one plus the searches waiting per thread, so that a
  // newcomer's turn comes soon however many wait; never below MIN_SHARED_MS
  // (or the cap, when smaller). The levels' depth limits still apply.
  static int budget_ms(int max_ms, size_t waiting, size_t threads);
  static constexpr int MIN_SHARED_MS = 200;

 private:
  void run();
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  CpuJob take();  // the next search to run (the lock held, a search waiting)
  std::map<std::string, std::deque<CpuJob>> queues_;  // waiting searches by owner
  std::map<std::string, uint64_t> served_;  // the turn each owner was last served at
  uint64_t turn_ = 0;
  size_t pending_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What the CPU does in a position: its move, preceded in declaration mode by
// starting a count it qualifies for, or by stopping its count when it can win.
// The search takes at most about `max_ms`.
// The steps are engine::level_actions's, on this thread's own engine.
std::vector<std::string> cpu_actions(const Position& pos, int level, int max_ms = 1500, bool answer_offer = false,
                                     Color cpu = BLACK);

}  // namespace makruk::server
